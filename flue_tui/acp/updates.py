"""flue's event stream as ACP `session/update` notifications, in order.

A Session calls its subscribers synchronously; sending is a coroutine. So each event becomes zero or
more updates on a queue that one task sends in order; `drain()` waits for it, so a prompt's
response never overtakes its last update. Only the root session's text, thinking and tools are
shown (a task child's work is its `task` call); edits carry diffs of the whole file (the editor shows
them), commands their output, and every call its kind, title and locations (toolinfo.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    Cost,
    FileEditToolCallContent,
    PlanEntry,
    TerminalToolCallContent,
    TextContentBlock,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from flue_tui.acp.toolinfo import ToolInfo, describe
from flue_tui.core.details import PlanDetails
from flue_tui.core.events import Event, TextDelta, ThinkingDelta, ToolEnd, ToolOutput, ToolStart, UsageEvent
from flue_tui.core.files import read_regular_text

MAX_DIFF_FILE = 1024 * 1024  # larger files are shown as the call's own old/new text, not whole
MAX_OUTPUT = 64 * 1024  # of a command's output, the tail shown while it runs and when it ends
TERMINAL_STREAM = "acp-terminal"  # clientio.py: the command runs in the client's terminal with this id


def read_old(path: str) -> str | None:
    """A file's text before an edit, for its diff: None when absent, too big, binary or special."""
    try:
        if os.stat(path).st_size > MAX_DIFF_FILE:
            return None
        text = read_regular_text(path)
    except Exception:  # absent, special, unreadable: the diff just has no old side
        return None
    return text if len(text) <= MAX_DIFF_FILE and "\0" not in text else None


def edit_diff(name: str, args: dict[str, Any], path: str, old: str | None, new: str | None) -> FileEditToolCallContent:
    """The whole file before and after when both are known; else the call's own text."""
    if new is None:
        if name == "write" and isinstance(args.get("content"), str):
            new = args["content"]
        elif name == "edit" and old is not None and isinstance(args.get("oldText"), str):
            find, put = args["oldText"], str(args.get("newText") or "")
            new = old.replace(find, put) if args.get("replaceAll") is True else old.replace(find, put, 1)
        else:
            old, new = (str(args.get("oldText") or "") or None), str(args.get("newText") or "")
    return FileEditToolCallContent(type="diff", path=path, old_text=old, new_text=new or "")


def locations(info: ToolInfo) -> list[ToolCallLocation]:
    return [ToolCallLocation(path=p, line=line) for p, line in info.locations]


def text_content(text: str) -> ContentToolCallContent:
    return ContentToolCallContent(type="content", content=TextContentBlock(type="text", text=text))


class Bridge:
    def __init__(self, send: Any, session: Any) -> None:
        self.send = send  # async (update) -> None
        self.session = session
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.calls: dict[str, dict[str, Any]] = {}  # tool call id → its info, old text, output so far
        self.pump = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        while True:
            update = await self.queue.get()
            try:
                await self.send(update)
            except Exception as exc:  # a client gone away: the turn still ends and is recorded
                logging.getLogger("flue.acp").debug("update not sent: %s", exc)
            finally:
                self.queue.task_done()

    async def drain(self) -> None:
        await self.queue.join()

    def close(self) -> None:
        self.pump.cancel()

    def put(self, update: Any) -> None:
        self.queue.put_nowait(update)

    # -- events ---------------------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        if event.task_id is not None:
            return
        if isinstance(event, TextDelta) and event.text:
            self.put(AgentMessageChunk(session_update="agent_message_chunk", content=_text(event.text)))
        elif isinstance(event, ThinkingDelta) and event.delta:
            self.put(AgentThoughtChunk(session_update="agent_thought_chunk", content=_text(event.delta)))
        elif isinstance(event, ToolStart):
            self._start(event)
        elif isinstance(event, ToolOutput):
            self._output(event)
        elif isinstance(event, ToolEnd):
            self._end(event)
        elif isinstance(event, UsageEvent) and event.purpose == "agent":
            self._usage(event)

    def info(self, name: str, args: dict[str, Any]) -> ToolInfo:
        return describe(self.session.tools.get(name), name, args, self.session.cwd)

    def _start(self, event: ToolStart) -> None:
        info = self.info(event.tool_name, event.args)
        old = read_old(info.locations[0][0]) if info.kind == "edit" and info.locations else None
        self.calls[event.tool_call_id] = {"info": info, "old": old, "args": dict(event.args), "out": ""}
        self.put(
            ToolCallStart(
                session_update="tool_call",
                tool_call_id=event.tool_call_id,
                title=info.title,
                kind=info.kind,  # type: ignore[arg-type]  # one of ACP's ToolKind, by toolinfo's table
                status="pending",
                locations=locations(info) or None,
                raw_input=dict(event.args),
            )
        )

    def _output(self, event: ToolOutput) -> None:
        call = self.calls.get(event.tool_call_id)
        if call is None:
            return
        if event.stream == TERMINAL_STREAM:
            call["terminal"] = event.chunk
            content: list[Any] = [TerminalToolCallContent(type="terminal", terminal_id=event.chunk)]
        else:
            call["out"] = (call["out"] + event.chunk)[-MAX_OUTPUT:]
            content = [text_content(call["out"])]
        self.put(
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=event.tool_call_id,
                status="in_progress",
                content=content,
            )
        )

    def _end(self, event: ToolEnd) -> None:
        call = self.calls.pop(event.tool_call_id, None) or {}
        info: ToolInfo = call.get("info") or self.info(event.tool_name, {})
        blocks = event.result.get("content") if isinstance(event.result, dict) else None
        text = "".join(str(b.get("text", "")) for b in blocks or [] if isinstance(b, dict))
        content: list[Any] = []
        if info.kind == "edit" and info.locations and not event.is_error:
            path = info.locations[0][0]
            content.append(edit_diff(event.tool_name, call.get("args", {}), path, call.get("old"), read_old(path)))
        elif call.get("terminal"):
            content.append(TerminalToolCallContent(type="terminal", terminal_id=call["terminal"]))
        if text and not (content and not event.is_error and info.kind == "edit"):
            content.append(text_content(text[-MAX_OUTPUT:]))
        self.put(
            ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=event.tool_call_id,
                status="failed" if event.is_error else "completed",
                content=content or None,
                raw_output=text[-MAX_OUTPUT:] if text else None,
            )
        )
        if not event.is_error and isinstance(event.result, dict):
            self.plan(event.tool_name, event.result.get("details"))

    def plan(self, tool_name: str, details: Any) -> None:
        """A successful todo_write's checklist as ACP's `plan` update (the whole list, as ACP wants);
        other tools' details are not plans. Live calls and a replayed history both come here."""
        tool = self.session.tools.get(tool_name)
        plan = tool.traits.read_details(details) if tool is not None else None
        if isinstance(plan, PlanDetails):
            entries = [PlanEntry(content=t.content, status=t.status, priority="medium") for t in plan.todos]  # type: ignore[arg-type]  # todo.py validates the statuses
            self.put(AgentPlanUpdate(session_update="plan", entries=entries))

    def _usage(self, event: UsageEvent) -> None:
        turn, total = event.turn or {}, event.total or {}
        used = int(turn.get("input", 0)) + int(turn.get("cacheRead", 0)) + int(turn.get("cacheWrite", 0))
        try:
            size = int(self.session.context_window() or 0)
        except Exception:  # a model litellm does not know: no window to tell
            size = 0
        cost = Cost(amount=float(total.get("cost", 0.0)), currency="USD") if total.get("priced", True) else None
        self.put(
            UsageUpdate(session_update="usage_update", used=used + int(turn.get("output", 0)), size=size, cost=cost)
        )


def _text(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)
