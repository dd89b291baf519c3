"""A resumed session's history as transcript entries, converted lazily from the end.

Resuming a 20,000-message session must show its last screenful at once: the transcript gets a
`backfill` that converts older messages a page at a time, only when the user scrolls up to them.

The entries are the ones the EventRouter builds from a live run's events, so a resumed session
reads exactly as it did live: a task block gets its child's steps (read from the store when the
block is built, nested tasks included), tools their durations, a skill run its typed `/name`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from flue_tui.agent import usershell
from flue_tui.core.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from flue_tui.core.traits import Described, traits_of
from flue_tui.tools.bash import BashTool
from flue_tui.ui.bashes import SIGNAL as BG_SIGNAL
from flue_tui.ui.termsafe import terminal_safe
from flue_tui.ui.transcript import (
    Entry,
    NoticeEntry,
    OutputTail,
    ReplyEntry,
    TaskEntry,
    ThinkingEntry,
    ToolEntry,
    Transcript,
    UserEntry,
)

Tools = Mapping[str, Described]  # the session's tools by name: their traits read details back


class ChildInfo(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def parent_tool_call_id(self) -> str | None: ...
    @property
    def task_id(self) -> str | None: ...
    @property
    def agent(self) -> str | None: ...


class History(Protocol):
    """What a backfill reads of the store (flue_tui.store.sessions.SessionStore)."""

    def children(self, session_id: str) -> Sequence[ChildInfo]: ...
    def load_context(self, session_id: str) -> list[Message]: ...


class _Children:
    """A stored session's task children by the call that started them, read once, when needed."""

    def __init__(self, store: History | None, session_id: str | None, tools: Tools) -> None:
        self.store, self.session_id, self.tools = store, session_id, tools
        self._by_call: dict[str, ChildInfo] | None = None

    def transcript(self, call_id: str, cwd: str, depth: int, entry: TaskEntry) -> Transcript | None:
        if self.store is None or not self.session_id:
            return None
        if self._by_call is None:
            try:
                kids = self.store.children(self.session_id)
            except Exception:  # a damaged or closed store: the block shows prompt and answer only
                kids = []
            self._by_call = {k.parent_tool_call_id: k for k in kids if k.parent_tool_call_id}
        info = self._by_call.get(call_id)
        if info is None:
            return None
        try:
            messages = self.store.load_context(info.id)
        except Exception:
            return None
        entry.session_id, entry.task_id = info.id, info.task_id
        entry.agent = info.agent or entry.agent
        child = Transcript(session_id=info.id, depth=depth + 1)
        # A child is a few dozen messages: built whole, as its block shows its last steps at once.
        child.entries = make_backfill(messages, cwd, self.store, info.id, depth=depth + 1, tools=self.tools)(
            sys.maxsize
        )
        for e in child.entries:
            if isinstance(e, ToolEntry):
                child.calls[e.call_id] = e
        return child


def _tool_entry(
    call_id: str, name: str, args: dict, result: ToolResultMessage | None, cwd: str, tools: Tools
) -> ToolEntry:
    """The stored result says what the tool was and how it ended; a row from before kinds were
    stored takes the kind from the tool of that name, if this session still has it."""
    traits = traits_of(tools.get(name))
    kind = (result.kind if result is not None else None) or traits.kind
    cls = TaskEntry if kind == "delegate" else ToolEntry
    entry = cls(call_id=call_id, name=name, args=dict(args), kind=kind, traits=traits, cwd=cwd)
    if result is None:
        entry.status, entry.outcome = "error", "aborted"
        entry.result_text = "interrupted"
    else:
        entry.status = "error" if result.is_error else "ok"
        entry.outcome = result.outcome
        entry.result_text = terminal_safe(result.text)
        entry.details = dict(result.details or {})
        entry.duration_ms = result.duration_ms
        if entry.kind == "execute" and entry.status == "ok":
            entry.tail = OutputTail.of(entry.result_text)  # drawn with the lines it had live
    if isinstance(entry, TaskEntry):
        entry.agent = str(args.get("agent") or "")
        entry.prompt = str(args.get("prompt") or "")
        entry.answer = entry.result_text
    return entry


def _shell_entry(ran: usershell.Shown, cwd: str) -> ToolEntry:
    """A `!command` the user ran, drawn as the bash block it was live."""
    call_id = f"{usershell.CALL_PREFIX}_resumed"
    traits = BashTool.traits
    entry = ToolEntry(
        call_id=call_id, name="bash", args={"command": ran.command}, kind=traits.kind, traits=traits, cwd=cwd
    )
    entry.status, entry.outcome = "ok", "ok"
    entry.result_text = terminal_safe(ran.text)  # a command's output may carry terminal escapes
    entry.details = dict(ran.details)
    entry.duration_ms = ran.details.get("durationMs")
    entry.tail = OutputTail.of(entry.result_text)
    return entry


def make_backfill(
    messages: list[Message],
    cwd: str,
    store: History | None = None,
    session_id: str | None = None,
    *,
    depth: int = 0,
    tools: Tools | None = None,
) -> Callable[[int], list[Entry]]:
    """`backfill(n)` → about n more entries, oldest first, walking back from the newest message.
    With the `store` and the session's id, task blocks get their child's steps; with its `tools`,
    their details read back typed."""
    cursor = len(messages)
    results: dict[str, ToolResultMessage] = {}
    tools = tools if tools is not None else {}
    children = _Children(store, session_id, tools)

    def backfill(n: int) -> list[Entry]:
        nonlocal cursor
        out: list[Entry] = []  # built newest-first, reversed at the end
        while cursor > 0 and len(out) < n:
            cursor -= 1
            m = messages[cursor]
            if isinstance(m, ToolResultMessage):
                results[m.tool_call_id] = m
            elif isinstance(m, UserMessage):
                if depth:  # a child's prompt is its task block's; live, a child shows no user lines
                    continue
                if (ran := usershell.shown(m.content, m.shell)) is not None:
                    out.append(_shell_entry(ran, cwd))
                elif m.content.startswith(BG_SIGNAL):
                    out.append(NoticeEntry(text=terminal_safe(m.display or "(a background command ended)")))
                elif m.content.startswith("<signal "):
                    out.append(NoticeEntry(text="(the previous reply was cut off)", level="warn"))
                else:
                    out.append(UserEntry(text=terminal_safe(m.display or m.content)))
            elif getattr(m, "role", "") == "compaction":
                out.append(NoticeEntry(text="Compacted here: the model sees a summary of what came before."))
            elif isinstance(m, AssistantMessage):
                start = len(out)
                for call in reversed(m.tool_calls):
                    entry = _tool_entry(call.id, call.name, call.arguments, results.pop(call.id, None), cwd, tools)
                    if isinstance(entry, TaskEntry):
                        entry.child = children.transcript(call.id, cwd, depth, entry)
                    out.append(entry)
                if m.text:
                    out.append(ReplyEntry(text=terminal_safe(m.text), done=True))
                if m.thinking:
                    out.append(ThinkingEntry(text=terminal_safe(m.thinking), done=True))
                if m.stop_reason == "aborted":
                    out.insert(start, NoticeEntry(text="Interrupted.", level="warn"))
                elif m.stop_reason == "error" and m.error:
                    out.insert(start, NoticeEntry(text=m.error, level="error"))
        out.reverse()
        return out

    return backfill


def recap(messages: list[Message], n: int, limit: int = 200) -> list[Message]:
    """The last exchanges of a history, about `n` messages, starting at a user message so no
    turn is shown cut in half (a result without its call), but never more than `limit`."""
    start = max(0, len(messages) - n)
    while start > 0 and not isinstance(messages[start], UserMessage) and len(messages) - start < limit:
        start -= 1
    return messages[start:]
