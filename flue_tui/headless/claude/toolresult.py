"""`tool_use_result` on a stream-json tool-result line: the structured result Claude Code writes
beside the model's text, in its shapes (taken from Claude Code 2.1's own output, side by side):

  failed call   "Error: <the text>"  (a string, for every tool)
  Bash          {"stdout", "stderr", "interrupted", "isImage", "noOutputExpected"}
  Read          {"type": "text", "file": {"filePath", "content", "numLines", "startLine", "totalLines"}}
  Write         {"type": "create" | "update", "filePath", "content", "structuredPatch", "originalFile", …}
  Edit          {"filePath", "oldString", "newString", "originalFile", "structuredPatch", "replaceAll", …}
  anything else [{"type": "text", "text": <the text>}]  (an MCP tool's content blocks)

flue's bash gives one merged output, so it is all `stdout`; patches and original files are not
kept (empty, null): a consumer reading these keys finds them, with what flue knows.
"""

from __future__ import annotations

from typing import Any

from flue_tui.core.messages import result_outcome


def tool_use_result(m: dict[str, Any], args: dict[str, Any]) -> Any:
    """For a toolResult message dict `m` and its call's arguments."""
    text = m.get("text") or ""
    outcome = result_outcome(m)
    if outcome not in ("ok", "aborted"):
        return f"Error: {text}"
    raw = m.get("details")
    details: dict[str, Any] = raw if isinstance(raw, dict) else {}
    tool = m.get("tool_name")
    path = details.get("path") or args.get("path") or ""
    if tool == "bash":
        return {
            "stdout": text,
            "stderr": "",
            "interrupted": outcome == "aborted",
            "isImage": False,
            "noOutputExpected": False,
        }
    if outcome == "aborted":
        return f"Error: {text}"
    if tool == "read" and not details.get("binary"):
        total = details.get("lines")
        return {
            "type": "text",
            "file": {
                "filePath": path,
                "content": text,
                "numLines": details.get("shown") or total or 0,
                "startLine": args.get("offset") if isinstance(args.get("offset"), int) else 1,
                "totalLines": total or 0,
            },
        }
    if tool == "write":
        diff = details.get("diff") or ""
        changed = any(line.startswith("-") and not line.startswith("---") for line in diff.splitlines())
        return {
            "type": "update" if changed else "create",
            "filePath": path,
            "content": args.get("content", ""),
            "structuredPatch": [],
            "originalFile": None,
            "userModified": False,
        }
    if tool == "edit":
        return {
            "filePath": path,
            "oldString": args.get("oldText", ""),
            "newString": args.get("newText", ""),
            "originalFile": None,
            "structuredPatch": [],
            "userModified": False,
            "replaceAll": bool(args.get("replaceAll")),
        }
    return [{"type": "text", "text": text}]
