"""Session: history, prompt(), abort(), and the subscribers that every front end uses."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flue_tui.agent.compaction import CompactionConfig, CompactionFailed, compact, nothing_to_compact, over_threshold
from flue_tui.agent.ending import Admitted, Ending
from flue_tui.agent.loop import BudgetExceeded, MaxTurnsReached, OperationFailed, run_loop
from flue_tui.agent.pending import PendingCheckpoint
from flue_tui.agent.prompthooks import stop_rounds
from flue_tui.agent.result import LENGTH_CUT, RESULT_STOP_REASONS, OperationResult, RunStats
from flue_tui.agent.seams import Seams
from flue_tui.core.abort import AbortError, AbortSignal
from flue_tui.core.events import Event, Idle, Log, MessageEnd, Operation, OperationStart, UsageEvent
from flue_tui.core.ids import new_id
from flue_tui.core.images import Image
from flue_tui.core.messages import AssistantMessage, Message, Usage, UserMessage, message_to_dict
from flue_tui.model.base import ModelClient
from flue_tui.tools.base import Tool
from flue_tui.tools.result import FOOTER, MAX_FOLLOW_UPS, REMINDER, FinishTool, GiveUpTool, Outcome

if TYPE_CHECKING:
    from flue_tui.agent.usershell import ShellResult  # `!command` (its module: at the first one)


class SessionBusy(Exception):
    pass


Subscriber = Callable[[Event], None]


class Session:
    def __init__(
        self,
        *,
        model: ModelClient,
        tools: list[Tool],
        system_prompt: str = "",
        cwd: str = ".",
        session_id: str | None = None,
        task_id: str | None = None,
        parent_session: str | None = None,
        depth: int = 0,
        max_turns: int | None = None,
        retry_base_ms: float = 2000.0,
        messages: list[Message] | None = None,
        compaction: CompactionConfig | None = None,
        max_budget_usd: float | None = None,
        parent: Session | None = None,
        usage: Usage | None = None,
        seams: Seams | None = None,
    ) -> None:
        """Everything a session consults is given here, as its `seams` (runtime/wiring.py builds it
        whole); nothing patches it afterwards."""
        self.id = session_id or new_id("ses")
        self.model = model
        self.tools: dict[str, Tool] = {t.name: t for t in tools}
        self.system_prompt = system_prompt
        self.cwd = cwd
        self.task_id = task_id
        self.parent_session = parent_session
        self.depth = depth
        self.max_turns = max_turns
        self.retry_base_ms = retry_base_ms
        self.messages: list[Message] = list(messages or [])
        # Every token this session and its task children used: the one total that the result, the
        # `usage` events, the status bar, /cost and the budget check read (see record_usage).
        self.usage = usage or Usage()
        # The caller of a task child, so a child's usage reaches its ancestors' totals.
        self.parent: Session | None = parent
        self._stats: RunStats | None = None  # the running operation's, children included
        self._subscribers: list[Subscriber] = []
        seams = seams or Seams()
        # Everything it consults (agent/seams.py); a task child's calls are its root session's turn's.
        self.seams: Seams = seams.inheriting(parent.seams) if parent is not None else seams
        self.max_budget_usd: float | None = max_budget_usd
        self.reminder: tuple[int, str] | None = None
        self.compaction = compaction or CompactionConfig()
        self._signal: AbortSignal | None = None
        self._pending: PendingCheckpoint | None = None  # the running prompt's checkpoint (agent/pending.py)
        # Set whenever no operation runs: front ends await it (wait_idle) instead of polling `running`.
        self._idle = asyncio.Event()
        self._idle.set()

    def recompose_prompt(self) -> None:
        """After a compaction: the system prompt built again (AGENTS.md and skills re-read), by the
        `recompose` the Runtime gave; the session's own state, so no one outside sets it."""
        if self.seams.recompose is not None:
            self.system_prompt = self.seams.recompose()

    # -- events -----------------------------------------------------------------------------
    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        self._subscribers.append(fn)
        return lambda: self._subscribers.remove(fn) if fn in self._subscribers else None

    def event(self, cls: type[Event], **fields: Any) -> Any:
        return cls(session=self.id, task_id=self.task_id, parent_session=self.parent_session, **fields)

    def emit(self, event: Event) -> None:
        for fn in list(self._subscribers):
            try:
                fn(event)
            except Exception as exc:  # a broken listener must not break the run
                print(f"flue: event listener failed: {exc!r}", file=sys.stderr)

    # -- usage --------------------------------------------------------------------------------
    def record_usage(self, usage: Usage, purpose: str = "agent") -> None:
        """Count one model request's usage here and in every ancestor (a task's tokens are its
        caller's too), then tell listeners: `turn` is this request, `total` this session's total."""
        node: Session | None = self
        while node is not None:
            node.usage.add(usage)
            if node._stats is not None:
                node._stats.usage.add(usage)
            node = node.parent
        self.emit(self.event(UsageEvent, turn=usage.to_dict(), total=self.usage.to_dict(), purpose=purpose))

    # -- operations ---------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._signal is not None

    async def wait_idle(self) -> None:
        """Until no prompt or compaction runs (the ending one has emitted its last event)."""
        while self._signal is not None:
            await self._idle.wait()

    def _busy(self) -> AbortSignal:
        if self._signal is not None:
            raise SessionBusy(f'Session "{self.id}" is busy running prompt.')
        self._idle.clear()
        signal = self._signal = AbortSignal()
        return signal

    def _done(self) -> None:
        self._signal = None
        self._idle.set()  # waiters run after this coroutine's next await: its last events are out

    def abort(self) -> None:
        """Stop the model stream and running tools; the history stays valid."""
        if self._signal is not None:
            self._signal.abort()

    async def _run_for_result(self, signal: AbortSignal, stats: RunStats, outcome: Outcome) -> None:
        """Run, then nudge the model until it calls finish or give_up (Flue allows 32 follow-ups)."""
        await run_loop(self, signal, stats)
        try:
            for _ in range(MAX_FOLLOW_UPS):
                if outcome.kind is not None:
                    return
                self.reminder = (len(self.messages), REMINDER)
                await run_loop(self, signal, stats)
        finally:
            self.reminder = None
        if outcome.kind is None:
            raise OperationFailed(f"Agent did not call `finish` or `give_up` after {MAX_FOLLOW_UPS + 1} attempts.")

    async def prompt(
        self,
        text: str,
        result_schema: dict[str, Any] | None = None,
        *,
        display: str | None = None,
        images: tuple[Image, ...] = (),
    ) -> OperationResult:
        """`display` is what the user typed when `text` is its expansion (a skill, `@path`): kept
        with the message for the transcript and a resume, never sent. `images` go with the text;
        a model without vision refuses the prompt before any request. Three phases: admit (the
        checkpoint, the hooks, the message), run (the loop to its ending), finish (the result)."""
        signal = self._busy()
        op_id, began = new_id("op"), time.monotonic()
        stats = self._stats = RunStats()
        self.emit(self.event(OperationStart, operation_id=op_id, operation_kind="prompt"))
        admitted = await self._admit(text, result_schema, display, images, signal)
        ending = await self._run_admitted(admitted, text, signal, stats)
        return await self._finish(admitted, ending, op_id, began, stats, signal)

    async def _admit(
        self,
        text: str,
        result_schema: dict[str, Any] | None,
        display: str | None,
        images: tuple[Image, ...],
        signal: AbortSignal,
    ) -> Admitted:
        """The prompt's checkpoint, its UserPromptSubmit hooks and its message in the history; a
        refused or blocked prompt joins neither the history nor the checkpoints' numbering."""
        refused = self.model.image_refusal() if images else None
        pending = PendingCheckpoint(self._checkpoint(text) if refused is None else None)
        self._pending = pending  # taken beside the first request
        if self.seams.prompt_hooks is not None:  # a UserPromptSubmit hook may change files: the checkpoint comes first
            await self._settle(pending, signal)
        outcome: Outcome | None = None
        if result_schema is not None:
            outcome = Outcome()
            for tool in (FinishTool(result_schema, outcome), GiveUpTool(outcome)):
                self.tools[tool.name] = tool
            text = f"{text}\n{FOOTER}"
        # An abort while the checkpoint settled gave it up: no hook may then change a file.
        hooked = self.seams.prompt_hooks is not None and refused is None and not signal.aborted
        blocked, extra = (
            await self.seams.prompt_hooks.user_prompt(text) if hooked and self.seams.prompt_hooks else (None, None)
        )
        if extra is not None:
            display, text = display or text, f"{text}\n\n{extra}"
        if refused is None and blocked is None:
            user = UserMessage(content=text, display=display if display != text else None, images=images)
            self.messages.append(user)
            self.emit(self.event(MessageEnd, message=message_to_dict(user)))
        return Admitted(pending, outcome, refused, blocked, display)

    async def _run_admitted(self, admitted: Admitted, sent: str, signal: AbortSignal, stats: RunStats) -> Ending:
        """The loop (Stop hooks, structured results' follow-ups, a compaction after it) to its
        ending: every way a run ends is a value here, never an exception past this point."""
        ending = Ending()
        outcome = admitted.outcome
        scope = contextlib.ExitStack()
        if self.seams.prompt_scope is not None:
            scope.enter_context(self.seams.prompt_scope(self, sent, admitted.display))
        try:
            await self._refuse_unadmitted(admitted, signal)
            if outcome is None:
                await run_loop(self, signal, stats)
                if self.seams.prompt_hooks is not None:
                    await stop_rounds(self.seams.prompt_hooks, self, self._remind, signal, stats)
            else:
                await self._run_for_result(signal, stats, outcome)
            ending.reply_stop = self._last_reply_stop()
            await self._maybe_compact()
            if outcome is not None and outcome.kind == "give_up":
                ending.error = f"The agent gave up: {outcome.reason}"
            elif outcome is None and ending.reply_stop == "length":
                ending.error = LENGTH_CUT  # a truncated answer is not a success; its text is still the result
        except (MaxTurnsReached, BudgetExceeded, AbortError, OperationFailed) as exc:
            ending.ended_by(exc, self.max_turns, stats.usage.cost, self.max_budget_usd)
        finally:
            scope.close()
            self._done()
            self._stats = self._pending = None
            if outcome is not None:
                self.tools.pop("finish", None)
                self.tools.pop("give_up", None)
        if ending.error is not None and ending.subtype == "success":
            ending.subtype = "error_during_execution"
        return ending

    async def _refuse_unadmitted(self, admitted: Admitted, signal: AbortSignal) -> None:
        """A prompt a hook blocked gives its checkpoint's number back; a refused or blocked prompt
        ends the run here, with its sentence."""
        if admitted.refused is not None:
            raise OperationFailed(admitted.refused)
        if admitted.blocked is not None:
            dropped = await admitted.pending.settle(signal)  # settled before the hooks ran
            admitted.pending.forget()
            if dropped is not None and self.seams.drop_prompt is not None:
                await self.seams.drop_prompt(self, dropped)
            raise OperationFailed(f"The prompt was blocked by a UserPromptSubmit hook: {admitted.blocked}")

    async def _finish(
        self, admitted: Admitted, ending: Ending, op_id: str, began: float, stats: RunStats, signal: AbortSignal
    ) -> OperationResult:
        """The turn's end kept (unless aborted), the operation's last events, and its result."""
        checkpoint = await admitted.pending.settle(signal)  # settled already (by the loop, or given up on an abort)
        if not ending.aborted:
            await self._turn_end(checkpoint)
        duration = int((time.monotonic() - began) * 1000)
        error = ending.error
        answered = error is None or error == LENGTH_CUT  # a cut answer's text is still the result
        final = self.last_assistant_text() if answered else ""
        self.emit(
            self.event(
                Operation,
                operation_id=op_id,
                operation_kind="prompt",
                duration_ms=duration,
                is_error=error is not None,
                error=error,
                result=final if answered else None,
                usage=stats.usage.to_dict(),
            )
        )
        self.emit(self.event(Idle))
        outcome = admitted.outcome
        return OperationResult(
            text=final if answered else (error or ""),
            is_error=error is not None,
            subtype=ending.subtype,
            num_turns=stats.turns,
            duration_ms=duration,
            duration_api_ms=int(stats.api_ms),
            usage=stats.usage,
            error=error,
            hint=ending.hint,
            aborted=ending.aborted,
            structured_output=outcome.data if outcome and outcome.kind == "finish" else None,
            stop_reason=RESULT_STOP_REASONS.get((ending.reply_stop if answered else None) or ""),
            checkpoint=checkpoint,
            api_error_status=ending.status,
        )

    def _remind(self, text: str | None) -> None:
        self.reminder = None if text is None else (len(self.messages), text)

    async def _snapshot(self, signal: AbortSignal, text: str) -> str | None:
        """The file checkpoint before a user shell command, which touches files at once."""
        return await self._settle(PendingCheckpoint(self._checkpoint(text)), signal)

    async def _settle(self, pending: PendingCheckpoint, signal: AbortSignal) -> str | None:
        try:
            return await pending.settle(signal)
        except BaseException:  # cancelled while snapshotting: the session is not left busy
            self._signal = self._stats = self._pending = None
            self._idle.set()
            raise

    async def settle_checkpoint(self, signal: AbortSignal) -> None:
        """LoopHost: before anything after a model reply (tools, hooks, a compaction) may touch a file."""
        if self._pending is not None:
            await self._pending.settle(signal)

    async def shell(self, command: str) -> ShellResult:
        """`!command`: the user's own shell command (agent/usershell.py), its own operation."""
        signal = self._busy()
        op_id = new_id("op")
        began = time.monotonic()
        self.emit(self.event(OperationStart, operation_id=op_id, operation_kind="shell"))
        try:
            from flue_tui.agent import usershell

            result = await usershell.run(self, command, signal, self._snapshot)
            if not result.aborted:
                await self._turn_end(result.checkpoint)
        finally:
            self._done()
        self.emit(
            self.event(
                Operation,
                operation_id=op_id,
                operation_kind="shell",
                duration_ms=int((time.monotonic() - began) * 1000),
                is_error=result.error is not None,
                error=result.error,
            )
        )
        self.emit(self.event(Idle))
        return result

    async def _turn_end(self, checkpoint: str | None) -> None:
        if checkpoint is None or self.seams.after_prompt is None:
            return
        try:
            await self.seams.after_prompt(self, checkpoint)
        except Exception as exc:  # a safety net's bookkeeping, never the reason a turn fails
            self.emit(self.event(Log, level="warn", message=f"[flue:checkpoints] Turn end not kept: {exc}"))

    async def _checkpoint(self, text: str) -> str | None:
        if self.seams.before_prompt is None:
            return None
        try:
            return await self.seams.before_prompt(self, text)
        except Exception as exc:  # a checkpoint is a safety net, never the reason a turn fails
            self.emit(self.event(Log, level="warn", message=f"[flue:checkpoints] Not taken: {exc}"))
            return None

    def _last_reply_stop(self) -> str | None:
        for m in reversed(self.messages):
            if isinstance(m, AssistantMessage):
                return m.stop_reason
        return None

    def context_window(self) -> int | None:
        return self.model.context_window()

    async def _maybe_compact(self) -> None:
        """Flue's threshold check, once a run has finished; a failure is logged, never fatal."""
        crossed = over_threshold(self)
        if crossed is None:
            return
        tokens, window, reserve = crossed
        self.emit(
            self.event(
                Log,
                level="info",
                message=f"[flue:compaction] Threshold reached — {tokens} tokens "
                f"used, window {window}, reserve {reserve}, triggering compaction",
            )
        )
        try:
            await compact(self, "threshold")
        except CompactionFailed as exc:
            self.emit(self.event(Log, level="warn", message=f"[flue:compaction] Failed: {exc}"))

    async def compact(self, focus: str | None = None) -> OperationResult:
        """Manual compaction (`/compact [focus]`): its own operation; failures are reported."""
        self._busy()
        stats = self._stats = RunStats()
        op_id = new_id("op")
        began = time.monotonic()
        self.emit(self.event(OperationStart, operation_id=op_id, operation_kind="compact"))
        error: str | None = None
        try:
            marker = await compact(self, "manual", focus)
            text = "Compacted." if marker is not None else nothing_to_compact(self)
        except CompactionFailed as exc:
            error, text = str(exc), str(exc)
        finally:
            self._done()
            self._stats = None
        duration = int((time.monotonic() - began) * 1000)
        self.emit(
            self.event(
                Operation,
                operation_id=op_id,
                operation_kind="compact",
                duration_ms=duration,
                is_error=error is not None,
                error=error,
                result=None if error else text,
                usage=stats.usage.to_dict(),
            )
        )
        self.emit(self.event(Idle))
        return OperationResult(
            text=text,
            is_error=error is not None,
            subtype="success" if error is None else "error_during_execution",
            num_turns=0,
            duration_ms=duration,
            duration_api_ms=duration,
            usage=stats.usage,
            error=error,
        )

    def last_assistant_text(self) -> str:
        for m in reversed(self.messages):
            if isinstance(m, AssistantMessage) and m.stop_reason not in ("error", "aborted"):
                return m.text
        return ""
