"""Session events → transcript changes. Cheap and synchronous: widgets are updated later, on a timer.

The subscriber runs on the agent's hot path (every token), so it only appends to strings and
records what changed; `take()` hands the changes to the view when the flush timer fires.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from flue_tui.agent import usage_text
from flue_tui.core.usage import Usage
from flue_tui.ui.bashes import SIGNAL as BG_SIGNAL
from flue_tui.ui.logline import log_line
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

if TYPE_CHECKING:  # the event and details classes are imported where they are needed (see handle)
    from flue_tui.core import events as ev
    from flue_tui.core.details import PlanDetails


@dataclass(slots=True)
class Status:
    """What the status bar shows besides model/name/cwd."""

    activity: str = "idle"
    # The root session's total, task children included (Session.record_usage): set from each of
    # the root's `usage` events; a child's turn is added until the root's next event includes it.
    total: Usage = field(default_factory=Usage)
    context_tokens: int = 0  # the root's last prompt: input + cache + output
    tasks: bool = False  # whether a task child's usage is in the total
    background: int = 0  # background commands running (bash_background): the status bar's count
    children: Usage = field(default_factory=Usage)  # the task children's own turns (this run), for /cost
    own_unpriced: bool = False  # a root turn had no known price (/cost names the model)
    task_models: dict[str, str] = field(default_factory=dict)  # a task child's session → its model
    # The models of task children whose turns had no known price ("" when a child's is not known).
    unpriced_tasks: dict[str, None] = field(default_factory=dict)

    def set_total(self, total: Usage) -> None:
        self.total = copy.copy(total)

    def add_usage(
        self, session: str, total: dict[str, Any], turn: dict[str, Any], root: bool, purpose: str = "agent"
    ) -> None:
        if not root:
            self.total.add(usage_text.from_dict(turn))
            self.children.add(usage_text.from_dict(turn))
            self.tasks = True
            if not turn.get("priced", True):
                self.unpriced_tasks[self.task_models.get(session, "")] = None
            return
        self.set_total(usage_text.from_dict(total))
        self.own_unpriced = self.own_unpriced or not turn.get("priced", True)
        if purpose == "agent":  # a summariser's prompt is not this conversation's context
            self.context_tokens = usage_text.prompt_tokens(usage_text.from_dict(turn)) + int(turn.get("output", 0))

    def resume_context(self, messages: list[Any]) -> None:
        """A resumed session's context as its last turn measured it (what add_usage set then), so
        "ctx %" shows before the next turn; unknown (0) when a compaction came after that turn."""
        from flue_tui.agent.compaction import usable
        from flue_tui.core.messages import AssistantMessage, CompactionMessage

        for m in reversed(messages):
            if isinstance(m, CompactionMessage):
                return
            if isinstance(m, AssistantMessage) and m.usage is not None and usable(m):
                self.context_tokens = usage_text.prompt_tokens(m.usage) + m.usage.output
                return

    @property
    def input_tokens(self) -> int:
        return usage_text.prompt_tokens(self.total)

    @property
    def output_tokens(self) -> int:
        return self.total.output

    @property
    def cost(self) -> float:
        return self.total.cost


class EventRouter:
    """Subscribe `router.handle` to a Session; call `take()` to collect what to render."""

    def __init__(self, root: Transcript, on_change: Callable[[], None], cwd: str = "") -> None:
        self.root = root
        self.cwd = cwd
        self.on_change = on_change
        self.sessions: dict[str, Transcript] = {}
        self.task_of: dict[str, TaskEntry] = {}  # child session id → its block
        self.running: dict[str, ToolEntry] = {}
        self.status = Status()
        self.status_dirty = True
        self.plan: PlanDetails | None = None  # the root's last todo_write: the app's checklist panel
        self.plan_dirty = False
        # The root's reply is whole (its message ended): the app draws its last frame at the plain
        # cadence, not after the wait that paces heavy frames while text keeps coming.
        self.reply_ended = False
        # The root's reply has begun (its first text): the app draws it at once, unpaced.
        self.reply_started = False
        self._appended: list[tuple[Transcript, Entry]] = []
        self._dirty: dict[Entry, None] = {}
        # Streamed text waits here until the flush: `entry.text += token` per token would copy the
        # whole reply each time (quadratic over a long reply).
        self._text: dict[Entry, list[str]] = {}
        if root.session_id:
            self.sessions[root.session_id] = root

    # -- collection ------------------------------------------------------------------------------
    def settle_text(self) -> None:
        for entry, parts in self._text.items():
            # Model text reaches a terminal: escapes are shown, never obeyed (per flush, so an
            # escape split across two flushes still loses its ESC).
            entry.text += terminal_safe("".join(parts))  # type: ignore[attr-defined]
        self._text.clear()

    def take(self) -> tuple[list[tuple[Transcript, Entry]], list[Entry]]:
        self.settle_text()
        appended, self._appended = self._appended, []
        dirty, self._dirty = list(self._dirty), {}
        return appended, dirty

    @property
    def pending(self) -> bool:
        return bool(self._appended or self._dirty or self._text or self.status_dirty)

    def _append(self, transcript: Transcript, entry: Entry) -> Entry:
        transcript.entries.append(entry)
        self._appended.append((transcript, entry))
        return entry

    def _add_text(self, entry: Entry, piece: str) -> None:
        parts = self._text.get(entry)
        if parts is None:
            self._text[entry] = [piece]
            self._dirty[entry] = None
        else:
            parts.append(piece)

    def _touch(self, *entries: Entry) -> None:
        for e in entries:
            self._dirty[e] = None

    def redraw(self, *entries: Entry) -> None:
        """`entries` are drawn again at the next flush, with no new event (a reply drawn plain
        until the app's Markdown stack loaded: tui/widgets/reply.py)."""
        self._touch(*entries)

    def add(self, entry: Entry, transcript: Transcript | None = None) -> Entry:
        """Add an entry that did not come from an event (a notice, a queued prompt)."""
        target = transcript or self.root
        if isinstance(entry, (UserEntry, NoticeEntry)):
            self._touch(*target.end_stream())
        self._append(target, entry)
        self.on_change()
        return entry

    def set_activity(self, activity: str) -> None:
        if self.status.activity != activity:
            self.status.activity = activity
            self.status_dirty = True

    # -- events ----------------------------------------------------------------------------------
    def _transcript(self, event: ev.Event) -> Transcript | None:
        t = self.sessions.get(event.session)
        if t is None and event.task_id is None:
            t = self.root  # the root session before its id was known
            if event.session:
                self.root.session_id = event.session
                self.sessions[event.session] = t
        return t

    def handle(self, event: ev.Event) -> None:
        # Dispatched by the class's name, so this module needs no import of core/events: creating
        # its classes would delay the first frame, and the app imports the router before it.
        name = type(event).__name__
        if name == "TaskStart":
            self._task_start(cast("ev.TaskStart", event))
            self.on_change()
            return
        t = self._transcript(event)
        if t is None:
            return  # an event of a child we never saw start (or a stale session)
        root = t is self.root
        method = getattr(self, "_on_" + name, None)
        if method is not None:
            method(event, t, root)
            self.on_change()

    def _on_TextDelta(self, e: ev.TextDelta, t: Transcript, root: bool) -> None:
        if t.thinking is not None:
            t.thinking.done = True
            self._touch(t.thinking)
            t.thinking = None
        if t.reply is None:
            t.reply = ReplyEntry(streamed=True)
            self._append(t, t.reply)
            self.reply_started = self.reply_started or root
        self._add_text(t.reply, e.text)
        if root:
            self.set_activity("writing")

    def _on_ThinkingDelta(self, e: ev.ThinkingDelta, t: Transcript, root: bool) -> None:
        if t.thinking is None:
            t.thinking = ThinkingEntry()
            self._append(t, t.thinking)
        self._add_text(t.thinking, e.delta)
        if root:
            self.set_activity("thinking")

    def _on_TurnStart(self, e: ev.TurnStart, t: Transcript, root: bool) -> None:
        self._touch(*t.end_stream())
        if root:
            self.set_activity("waiting for the model")

    def _on_OperationStart(self, e: ev.OperationStart, t: Transcript, root: bool) -> None:
        if root:
            self.set_activity("working")

    def _on_MessageEnd(self, e: ev.MessageEnd, t: Transcript, root: bool) -> None:
        role = e.message.get("role")
        if role == "user":
            if str(e.message.get("content", "")).startswith(BG_SIGNAL):
                return  # a background command's end, told to the model: its line is shown already
            if t.depth == 0 and not e.message.get("shell"):  # a `!command` is its bash block already
                # What was typed (a skill run shows `/review`, not its prompt): the message keeps it.
                text = str(e.message.get("display") or e.message.get("content", ""))
                self._touch(*t.end_stream())
                self._append(t, UserEntry(text=text))
        elif role == "assistant":
            self._touch(*t.end_stream())
            self.reply_ended = self.reply_ended or root
            if e.message.get("stop_reason") == "error" and e.message.get("error") and not root:
                self._append(t, NoticeEntry(text=str(e.message["error"]), level="error"))

    def _on_ToolStart(self, e: ev.ToolStart, t: Transcript, root: bool) -> None:
        self._touch(*t.end_stream())
        common: dict[str, Any] = dict(
            call_id=e.tool_call_id, name=e.tool_name, args=dict(e.args), kind=e.kind, traits=e.traits, cwd=self.cwd
        )
        if e.kind == "delegate":
            entry: ToolEntry = TaskEntry(
                **common, agent=str(e.args.get("agent") or ""), prompt=str(e.args.get("prompt") or "")
            )
        else:
            entry = ToolEntry(**common)
            if e.kind == "execute":
                entry.tail = OutputTail()
        t.calls[e.tool_call_id] = entry
        self.running[e.tool_call_id] = entry
        self._append(t, entry)
        if root:
            self.set_activity(f"running {e.tool_name}")

    def _on_ToolOutput(self, e: ev.ToolOutput, t: Transcript, root: bool) -> None:
        entry = t.calls.get(e.tool_call_id)
        if entry is None:
            return
        if entry.tail is None:
            entry.tail = OutputTail()
        entry.tail.feed(e.stream, terminal_safe(e.chunk))
        self._touch(entry)

    def _on_ToolEnd(self, e: ev.ToolEnd, t: Transcript, root: bool) -> None:
        entry = t.calls.get(e.tool_call_id)
        if entry is None:
            return
        content = e.result.get("content") or []
        entry.result_text = terminal_safe("\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict)))
        entry.details = dict(e.result.get("details") or {})
        entry.status = "error" if e.is_error else "ok"
        entry.outcome = e.outcome
        entry.duration_ms = e.duration_ms
        if isinstance(entry, TaskEntry) and entry.answer is None:
            entry.answer = entry.result_text  # refused before its child ran (no TaskEnd): say why, as a resume does
        self.running.pop(e.tool_call_id, None)
        from flue_tui.core.details import PlanDetails  # a tool's end: past the first frame

        plan = entry.info if root and not e.is_error else None
        if isinstance(plan, PlanDetails):  # todo_write's checklist (its traits' details type)
            self.plan = plan
            self.plan_dirty = True
        self._touch(entry)
        if root and not any(r for r in self.running.values()):
            self.set_activity("working")

    @contextlib.contextmanager
    def approval(self, call_id: str) -> Iterator[None]:
        """Around a permission question (the app's dialog, inline's question): the call's clock
        does not run while the person decides; it starts when the tool does (toolrun.py measures
        the same way), so a denied call shows no time it never ran."""
        entry = next((t.calls[call_id] for t in self.sessions.values() if call_id in t.calls), None)
        if entry is not None:
            entry.waiting = True
            self._touch(entry)
        try:
            yield
        finally:
            if entry is not None:
                entry.waiting = False
                entry.started = time.monotonic()
                self._touch(entry)

    def who_asks(self, call_id: str) -> str | None:
        """ "sub-agent NAME (description)" when a task's child made the call `call_id`, else None:
        an approval question says who asks, in the app and inline."""
        for sid, transcript in self.sessions.items():
            task = self.task_of.get(sid)
            if call_id in transcript.calls and task is not None:
                what = task.args.get("description")
                return f"sub-agent {task.agent or 'task'}" + (f" ({what})" if isinstance(what, str) and what else "")
        return None

    def _task_start(self, e: ev.TaskStart) -> None:
        parent = self.sessions.get(e.parent_session or "") or self.root
        entry = parent.calls.get(e.tool_call_id or "")
        if not isinstance(entry, TaskEntry):
            entry = TaskEntry(call_id=e.tool_call_id or e.session, name="task", kind="delegate", cwd=self.cwd)
            self._append(parent, entry)
        entry.agent = e.agent or entry.agent
        entry.prompt = e.prompt
        entry.task_id = e.task_id
        entry.session_id = e.session
        entry.child = Transcript(session_id=e.session, depth=parent.depth + 1)
        self.sessions[e.session] = entry.child
        self.task_of[e.session] = entry
        if e.model:
            self.status.task_models[e.session] = e.model
        self._touch(entry)

    def _on_TaskEnd(self, e: ev.TaskEnd, t: Transcript, root: bool) -> None:
        entry = self.task_of.get(e.session)
        if entry is None:
            return
        self._touch(*t.end_stream())
        entry.answer = e.result
        if e.is_error:
            entry.status = "error"
            entry.result_text = e.result
        self._touch(entry)

    def _on_UsageEvent(self, e: ev.UsageEvent, t: Transcript, root: bool) -> None:
        self.status.add_usage(e.session, e.total, e.turn, root, e.purpose)
        self.status_dirty = True

    def _on_Retry(self, e: ev.Retry, t: Transcript, root: bool) -> None:
        self._on_Log(e, t, root)  # a retry is a log line on screen, worded by ui/logline.py

    def _on_Fallback(self, e: ev.Fallback, t: Transcript, root: bool) -> None:
        self._on_Log(e, t, root)  # --fallback-model took over: its sentence, as a warning notice

    def _on_Log(self, e: ev.Log, t: Transcript, root: bool) -> None:
        if e.level in ("warn", "error"):
            self._touch(*t.end_stream())
            self._append(t, NoticeEntry(text=log_line(e), level=e.level))

    def _on_Operation(self, e: ev.Operation, t: Transcript, root: bool) -> None:
        self._touch(*t.end_stream())
        if root:
            self.set_activity("idle")
            for entry in list(self.running.values()):
                # A tool that never reported back (abandoned on abort) must not spin forever.
                entry.status = "error"
                entry.result_text = entry.result_text or "interrupted"
                self._touch(entry)
            self.running.clear()

    def _on_CompactionStart(self, e: ev.CompactionStart, t: Transcript, root: bool) -> None:
        if root:
            self._touch(*t.end_stream())
            self.set_activity("compacting")
            why = {
                "threshold": "the context is nearly full",
                "overflow": "the context overflowed",
                "manual": "/compact",
            }.get(e.reason, e.reason)
            self._append(t, NoticeEntry(text=f"Compacting the conversation ({why}, ~{e.estimated_tokens:,} tokens)…"))

    def _on_Compaction(self, e: ev.Compaction, t: Transcript, root: bool) -> None:
        if root and e.is_error:
            self._append(t, NoticeEntry(text=f"Compaction failed: {e.error}", level="error"))
        elif root:
            self._append(
                t,
                NoticeEntry(
                    text=f"Compacted: the model now sees a summary instead of "
                    f"{e.messages_before - e.messages_after} older messages; everything "
                    "stays here and in the session store."
                ),
            )

    def _on_Idle(self, e: ev.Idle, t: Transcript, root: bool) -> None:
        if root:
            self.set_activity("idle")
