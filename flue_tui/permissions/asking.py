"""What an approval question shows (the exact command, or the diff a write or edit would make), and
asking it in line mode (the plain front end: the request on stderr, the answer on stdin). The app's
dialog lives in flue_tui/tui/screens/approval.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from typing import TYPE_CHECKING, Any

from flue_tui.core.termsafe import terminal_safe
from flue_tui.permissions.approval import Approval
from flue_tui.tools.diff import read_before, unified_diff

if TYPE_CHECKING:
    from flue_tui.permissions.approval import ApprovalRequest

TITLES = {"bash": "Run command", "write": "Write file", "edit": "Edit file"}
MAX_LINES = 60  # a long diff is cut on the terminal; the dialog in the app scrolls instead


def _write_diff(tool: Any, path: str, content: str) -> str:
    before = read_before(getattr(tool, "sandbox", None), path)
    return unified_diff(path, before, content) or f"(no change to {path})"


def _edit_diff(tool: Any, path: str, old: str, new: str, replace_all: bool) -> str:
    current = read_before(getattr(tool, "sandbox", None), path)
    if current and old and old in current:
        after = current.replace(old, new) if replace_all else current.replace(old, new, 1)
        return unified_diff(path, current, after) or f"(no change to {path})"
    # The edit will fail (or the file is too big to diff): show the replacement itself.
    return unified_diff(path, old, new) or f"(no change to {path})"


def _text(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False, indent=2)


async def preview(tool_name: str, args: dict[str, Any], tool: Any) -> tuple[str, str, str]:
    """(title, body, body_kind) where body_kind is "command", "diff" or "json"."""
    title = TITLES.get(tool_name, f"Use {tool_name}")
    try:
        if tool_name == "bash" and isinstance(args.get("command"), str):
            return title, args["command"], "command"
        path = args.get("path")
        if tool_name == "write" and isinstance(path, str) and isinstance(args.get("content"), str):
            body = await asyncio.to_thread(_write_diff, tool, path, args["content"])
            return f"{title} {path}", body, "diff"
        if tool_name == "edit" and isinstance(path, str):
            body = await asyncio.to_thread(
                _edit_diff,
                tool,
                path,
                str(args.get("oldText", "")),
                str(args.get("newText", "")),
                bool(args.get("replaceAll")),
            )
            return f"{title} {path}", body, "diff"
    except Exception:  # a preview must never stop the question being asked
        pass
    return title, _text(args), "json"


def session_label(request: ApprovalRequest) -> str:
    """What "allow for this session" adds, in the rules' own words; an unclear command gets no rule."""
    return ", ".join(request.session_rules) or "no rule can allow this command, so it only runs this once"


async def ask_on_terminal(request: ApprovalRequest) -> Approval:
    """The plain front end's asker: 1 allows once, 2 for the session, 3 (or Enter) refuses."""
    lines = terminal_safe(request.body).splitlines()  # the model's arguments: shown, never obeyed
    body = "\n".join(lines[:MAX_LINES])
    if len(lines) > MAX_LINES:
        body += f"\n… {len(lines) - MAX_LINES} more lines"
    print(terminal_safe(f"\n{request.title}?  ({request.tool_name} · {request.mode} mode)"), file=sys.stderr)
    print(textwrap.indent(body, "  │ "), file=sys.stderr)
    rules = session_label(request)
    prompt = f"  [1] allow once  [2] allow for this session ({rules})  [3] deny > "
    try:
        while True:
            answer = (await asyncio.to_thread(input, prompt)).strip().lower()
            if answer in ("1", "y", "yes"):
                return Approval("once")
            if answer in ("2", "a"):
                return Approval("session")
            if answer in ("3", "n", "no", ""):
                note = await asyncio.to_thread(input, "  note to the model (optional): ")
                return Approval("deny", note=note.strip())
    except EOFError:  # stdin closed: nobody can say yes
        return Approval("deny")
