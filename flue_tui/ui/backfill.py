"""A resumed session's history as transcript entries, converted lazily from the end.

Resuming a 20,000-message session must show its last screenful at once: the transcript gets a
`backfill` that converts older messages a page at a time, only when the user scrolls up to them.
"""

from __future__ import annotations

from collections.abc import Callable

from flue_tui.agent import usershell
from flue_tui.core.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from flue_tui.ui.termsafe import terminal_safe
from flue_tui.ui.transcript import (
    Entry,
    NoticeEntry,
    ReplyEntry,
    TaskEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)

KIND = {
    "read": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "grep": "search",
    "glob": "search",
    "task": "delegate",
}


def _tool_entry(call_id: str, name: str, args: dict, result: ToolResultMessage | None, cwd: str) -> ToolEntry:
    cls = TaskEntry if name == "task" else ToolEntry
    entry = cls(call_id=call_id, name=name, args=dict(args), kind=KIND.get(name, "other"), cwd=cwd)
    if result is None:
        entry.status = "error"
        entry.result_text = "interrupted"
    else:
        entry.status = "error" if result.is_error else "ok"
        entry.result_text = result.text
        entry.details = dict(result.details or {})
    if isinstance(entry, TaskEntry):
        entry.agent = str(args.get("agent") or "")
        entry.prompt = str(args.get("prompt") or "")
        entry.answer = entry.result_text
    return entry


def _shell_entry(ran: usershell.Shown, cwd: str) -> ToolEntry:
    """A `!command` the user ran, drawn as the bash block it was live."""
    entry = ToolEntry(call_id="", name="bash", args={"command": ran.command}, kind="execute", cwd=cwd)
    entry.status = "ok"
    entry.result_text = terminal_safe(ran.text)  # a command's output may carry terminal escapes
    entry.details = dict(ran.details)
    entry.duration_ms = ran.details.get("durationMs")
    return entry


def make_backfill(messages: list[Message], cwd: str) -> Callable[[int], list[Entry]]:
    """`backfill(n)` → about n more entries, oldest first, walking back from the newest message."""
    cursor = len(messages)
    results: dict[str, ToolResultMessage] = {}

    def backfill(n: int) -> list[Entry]:
        nonlocal cursor
        out: list[Entry] = []  # built newest-first, reversed at the end
        while cursor > 0 and len(out) < n:
            cursor -= 1
            m = messages[cursor]
            if isinstance(m, ToolResultMessage):
                results[m.tool_call_id] = m
            elif isinstance(m, UserMessage):
                if (ran := usershell.shown(m.content, m.shell)) is not None:
                    out.append(_shell_entry(ran, cwd))
                elif m.content.startswith("<signal "):
                    out.append(NoticeEntry(text="(the previous reply was cut off)", level="warn"))
                else:
                    out.append(UserEntry(text=m.content))
            elif getattr(m, "role", "") == "compaction":
                out.append(NoticeEntry(text="Compacted here: the model sees a summary of what came before."))
            elif isinstance(m, AssistantMessage):
                start = len(out)
                for call in reversed(m.tool_calls):
                    out.append(_tool_entry(call.id, call.name, call.arguments, results.pop(call.id, None), cwd))
                if m.text:
                    out.append(ReplyEntry(text=m.text, done=True))
                if m.thinking:
                    out.append(ThinkingEntry(text=m.thinking, done=True))
                if m.stop_reason == "aborted":
                    out.insert(start, NoticeEntry(text="Interrupted.", level="warn"))
                elif m.stop_reason == "error" and m.error:
                    out.insert(start, NoticeEntry(text=m.error, level="error"))
        out.reverse()
        return out

    return backfill
