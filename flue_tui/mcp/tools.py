"""MCP tools as flue tools: `mcp__<server>__<tool>` names, safe schemas, results as text.

Names, descriptions and schemas come from a server, so they are untrusted: names are made valid for
every provider (`^[a-zA-Z0-9_-]{1,64}$`) and unique, schemas are reduced to what the argument
checker and providers accept, and results are bounded like the bash tool's output.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from flue_tui.core.abort import ToolError
from flue_tui.core.traits import ToolTraits
from flue_tui.tools.base import MAX_READ_BYTES, MAX_READ_LINES, ToolContext, ToolResult
from flue_tui.tools.truncate import truncate_head

PREFIX = "mcp__"
_BAD = r"[^A-Za-z0-9_-]"
MAX_NAME = 64
MAX_DESCRIPTION = 2048


def _clean(part: str) -> str:
    return re.sub(_BAD, "_", part) or "_"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`mcp__server__tool`, sanitised, at most 64 characters, not in `taken` (which it joins)."""
    name = f"{PREFIX}{_clean(server)}__{_clean(tool)}"
    if len(name) > MAX_NAME:  # keep the start, make the end unique to the full name
        name = name[: MAX_NAME - 9] + "_" + hashlib.sha256(name.encode()).hexdigest()[:8]
    base, n = name, 2
    while name.lower() in {t.lower() for t in taken}:
        suffix = f"_{n}"
        name = base[: MAX_NAME - len(suffix)] + suffix
        n += 1
    taken.add(name)
    return name


def _safe_node(node: dict[str, Any], depth: int) -> dict[str, Any]:
    """Every part the argument checker (agent/validation.py) walks, made the shape it expects."""
    out = dict(node)
    if not isinstance(out.get("type"), str | list):
        out.pop("type", None)
    props = out.get("properties")
    if "properties" in out:
        out["properties"] = (
            {k: _safe_node(v, depth + 1) for k, v in props.items() if isinstance(k, str) and isinstance(v, dict)}
            if isinstance(props, dict) and depth < 32
            else {}
        )
    if "required" in out:
        required = out["required"]
        out["required"] = [r for r in required if isinstance(r, str)] if isinstance(required, list) else []
    if "items" in out:
        items = out["items"]
        if isinstance(items, dict) and depth < 32:
            out["items"] = _safe_node(items, depth + 1)
        else:
            out.pop("items")
    if "minLength" in out and (isinstance(out["minLength"], bool) or not isinstance(out["minLength"], int)):
        out.pop("minLength")
    return out


def safe_schema(raw: Any) -> dict[str, Any]:
    """The server's input schema as an object schema whose parts the argument checker can walk."""
    schema = _safe_node(raw if isinstance(raw, dict) else {}, 0)
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def _bounded(text: str) -> str:
    lines = text.split("\n")
    out, cut, shown = truncate_head(lines, len(lines), MAX_READ_LINES, MAX_READ_BYTES)
    if not cut:
        return text
    return (
        f"{out}\n\n[flue] MCP tool output truncated: showed {shown} of {len(lines)} lines "
        f"(limit {MAX_READ_LINES} lines or 50KB)."
    )


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return block.text
    if kind in ("image", "audio"):
        size = len(getattr(block, "data", "") or "") * 3 // 4
        return f"[{kind} {block.mime_type}, about {size} bytes: not shown, flue does not pass {kind}s to the model yet]"
    if kind == "resource_link":
        about = f" ({block.mime_type})" if getattr(block, "mime_type", None) else ""
        desc = f": {block.description}" if getattr(block, "description", None) else ""
        return f"[resource link {block.name} <{block.uri}>{about}{desc}]"
    if kind == "resource":
        res = block.resource
        text = getattr(res, "text", None)
        if isinstance(text, str):
            return f"[resource <{res.uri}>]\n{text}"
        return f"[resource <{res.uri}> ({getattr(res, 'mime_type', None) or 'binary'}): binary content not shown]"
    return f"[{kind or 'unknown'} content not shown]"


def result_text(result: Any) -> str:
    """A CallToolResult as the text the model reads: content blocks, else the structured content."""
    parts = [_block_text(b) for b in (getattr(result, "content", None) or [])]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(getattr(b, "type", None) == "text" for b in result.content or []):
        parts.append(json.dumps(structured, ensure_ascii=False, indent=2))
    return _bounded("\n".join(parts)) if parts else "(no output)"


class McpTool:
    """One server tool; its traits' kind decides how permission modes treat it (permissions/policy.py)."""

    def __init__(self, name: str, server: Any, tool: Any) -> None:
        self.name = name
        self.server = server  # a Connection
        self.remote_name: str = tool.name
        self.label = f"{server.config.name} · {tool.name}"
        self.description = (getattr(tool, "description", None) or getattr(tool, "title", None) or "")[:MAX_DESCRIPTION]
        self.parameters = safe_schema(getattr(tool, "input_schema", None))
        hints = getattr(tool, "annotations", None)
        self.read_only_hint = bool(getattr(hints, "read_only_hint", False))
        # Read-only (runs in ask and plan modes) only when the server says so and the user trusts it to.
        read_only = self.read_only_hint and server.config.trust_read_only_hint
        self.traits = ToolTraits(kind="read" if read_only else "execute", read_only=read_only)

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from flue_tui.mcp.connection import McpCallError

        try:
            result = await self.server.call(self.remote_name, args)
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        text = result_text(result)
        details = {"server": self.server.config.name, "tool": self.remote_name}
        if getattr(result, "is_error", False):
            raise ToolError(text)
        return ToolResult(text, details)
