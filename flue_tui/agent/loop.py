"""One operation: model turn → concurrent tools → next turn, until the model stops calling tools."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from flue_tui.agent.compaction import CompactionFailed, CompactionHost, compact
from flue_tui.agent.toolrun import ToolHost, run_tool_batch
from flue_tui.core.abort import AbortError, AbortSignal
from flue_tui.core.events import Log, MessageEnd, Retry, TextDelta, ThinkingDelta, Turn, TurnStart
from flue_tui.core.ids import new_id
from flue_tui.core.messages import (
    AssistantMessage,
    Message,
    StopReason,
    Usage,
    UserMessage,
    message_to_dict,
    to_wire,
)
from flue_tui.model.base import ModelError, TextChunk, ThinkingChunk, TurnResponse, UsageChunk
from flue_tui.tools.base import tool_spec


class TurnSeams(Protocol):
    """What the loop consults of a Session's seams (agent/seams.py): the hook before each request."""

    @property
    def before_turn(self) -> Callable[[Any], Awaitable[None]] | None: ...


class LoopHost(CompactionHost, ToolHost, Protocol):
    """What one operation needs of its Session (a Protocol: session.py imports this module)."""

    @property
    def max_turns(self) -> int | None: ...
    @property
    def max_budget_usd(self) -> float | None: ...
    @property
    def reminder(self) -> tuple[int, str] | None: ...
    @property
    def retry_base_ms(self) -> float: ...
    @property
    def seams(self) -> TurnSeams: ...
    async def settle_checkpoint(self, signal: AbortSignal) -> None: ...


class Stats(Protocol):
    """The operation's running counts (session.RunStats)."""

    turns: int
    api_ms: float
    usage: Usage


MAX_RETRIES = 3


class MaxTurnsReached(Exception):
    pass


class BudgetExceeded(Exception):
    pass


class OperationFailed(Exception):
    """The operation ended on a model error; `hint` is a user-facing sentence naming the fix."""

    def __init__(
        self, message: str, hint: str | None = None, kind: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.hint = hint
        self.kind = kind
        self.status = status  # the provider's HTTP status, when it answered with an error


def _record(session: LoopHost, message: Message) -> None:
    session.messages.append(message)
    session.emit(session.event(MessageEnd, message=message_to_dict(message)))


async def _stream_turn(session: LoopHost, signal: AbortSignal, turn_id: str) -> AssistantMessage:
    """Stream one assistant message; an abort cancels the request (closing the connection)."""
    partial = AssistantMessage(model=session.model.model)
    done: list[TurnResponse] = []

    async def consume() -> None:
        messages = session.messages
        if session.reminder is not None:
            # A follow-up nudge for structured results: sent where it was raised, never stored.
            at, text = session.reminder
            messages = [*messages[:at], UserMessage(content=text), *messages[at:]]
        wire = to_wire(session.system_prompt, messages, images=session.model.image_refusal() is None)
        specs = [tool_spec(t) for t in session.tools.values()]
        paused = time.monotonic()
        async for item in session.model.stream_turn(wire, specs):
            # When chunks arrive faster than they are parsed, every read finds data buffered and
            # never yields: the event loop (UI frames, Esc, signals) would starve until the turn
            # ends. Give it a turn every 5 ms (an abort then reaches this task within a few turns).
            if time.monotonic() - paused > 0.005:
                await asyncio.sleep(0)
                paused = time.monotonic()
            if isinstance(item, TextChunk):
                partial.text += item.text
                session.emit(session.event(TextDelta, text=item.text))
            elif isinstance(item, ThinkingChunk):
                partial.thinking += item.text
                session.emit(session.event(ThinkingDelta, delta=item.text))
            elif isinstance(item, UsageChunk):
                partial.usage = item.usage  # what the provider counted so far, kept if we abort
            else:
                done.append(item)

    task = asyncio.ensure_future(consume())
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    # The prompt's file checkpoint was taken beside this request (agent/pending.py): it is whole
    # before anything the reply leads to (tools, hooks, a compaction) can touch a file.
    await session.settle_checkpoint(signal)
    # An abort while it settled gave the checkpoint up: a whole reply's calls (and the policy's
    # PreToolUse hooks, an overflow's compaction) must not run without it, so the turn ends aborted.
    if not task.done() or signal.aborted:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        partial.stop_reason = "aborted"
        raise _Interrupted(partial)
    exc = task.exception()
    if exc is not None:
        partial.stop_reason = "error"
        partial.error = str(exc)
        raise _Failed(partial, exc)
    response = done[-1]
    return AssistantMessage(
        text=response.text,
        thinking=response.thinking,
        thinking_blocks=response.thinking_blocks,
        tool_calls=response.tool_calls,
        stop_reason=_stop_reason(response),
        model=response.model or session.model.model,
        usage=response.usage,
    )


def _stop_reason(response: TurnResponse) -> StopReason:
    """A provider's refusal (OpenAI's `content_filter`, Anthropic's `refusal`) is said as such."""
    if response.finish_reason == "length":
        return "length"
    if response.tool_calls:
        return "tool_calls"
    return "refusal" if response.finish_reason in ("content_filter", "refusal") else "stop"


class _Interrupted(Exception):
    def __init__(self, partial: AssistantMessage) -> None:
        self.partial = partial


class _Failed(Exception):
    def __init__(self, partial: AssistantMessage, error: BaseException) -> None:
        self.partial = partial
        self.error = error


async def _backoff(signal: AbortSignal, delay_ms: float) -> None:
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({stop}, timeout=delay_ms / 1000)
    finally:
        stop.cancel()
    signal.throw_if_aborted()


async def run_loop(session: LoopHost, signal: AbortSignal, stats: Stats) -> None:
    """Raises AbortError, MaxTurnsReached or OperationFailed; the history stays valid in every case."""
    retries = 0
    overflow_recovered = False
    while True:
        if session.seams.before_turn is not None:  # MCP servers still starting: their tools join this turn
            await session.seams.before_turn(session)
        signal.throw_if_aborted()
        turn_id = new_id("turn")
        session.emit(session.event(TurnStart, turn_id=turn_id))
        began = time.monotonic()
        try:
            message = await _stream_turn(session, signal, turn_id)
        except (_Interrupted, _Failed) as stopped:
            elapsed = time.monotonic() - began
            stats.api_ms += elapsed * 1000
            error = stopped.error if isinstance(stopped, _Failed) else None
            session.emit(
                session.event(
                    Turn,
                    turn_id=turn_id,
                    purpose="agent",
                    duration_ms=int(elapsed * 1000),
                    is_error=True,
                    error=str(error) if error else "aborted",
                )
            )
            # Tokens the provider already counted are paid for: they go into the totals.
            if stopped.partial.usage is not None:
                session.record_usage(stopped.partial.usage)
            # Kept for the record; errored and aborted turns never reach the model again.
            _record(session, stopped.partial)
            if error is None:
                raise AbortError() from None
            model_error = error if isinstance(error, ModelError) else ModelError(str(error))
            if model_error.kind == "overflow" and not overflow_recovered:
                # Flue compacts and retries once; a second overflow is the operation's error.
                overflow_recovered = True
                session.emit(
                    session.event(
                        Log, level="info", message="[flue:compaction] Overflow detected, compacting and retrying..."
                    )
                )
                try:
                    await compact(session, "overflow")
                except CompactionFailed as exc:
                    raise OperationFailed(f"prompt failed: {exc}") from None
                session.emit(
                    session.event(Log, level="info", message="[flue:compaction] Retrying after overflow recovery...")
                )
                continue
            if model_error.retryable and retries < MAX_RETRIES and not signal.aborted:
                retries += 1
                delay = round(session.retry_base_ms * 2 ** (retries - 1) * (0.75 + random.random() * 0.25))
                session.emit(
                    session.event(
                        Retry,
                        attempt=retries,
                        max_retries=MAX_RETRIES,
                        delay_ms=delay,
                        error=model_error.message,
                        error_kind=model_error.kind,
                        status=model_error.status,
                    )
                )
                await _backoff(signal, delay)
                continue
            if model_error.retryable:
                session.emit(
                    session.event(
                        Log,
                        level="error",
                        message="[flue:model-retry] Transient model error retries exhausted",
                        attributes={"attempt": retries, "maxRetries": MAX_RETRIES, "error": model_error.message},
                    )
                )
            raise OperationFailed(
                f"prompt failed: {model_error.message}",
                hint=model_error.hint,
                kind=model_error.kind,
                status=model_error.status,
            ) from None
        retries = 0
        elapsed = time.monotonic() - began
        stats.api_ms += elapsed * 1000
        stats.turns += 1
        turn_usage = message.usage
        session.emit(
            session.event(
                Turn,
                turn_id=turn_id,
                purpose="agent",
                duration_ms=int(elapsed * 1000),
                is_error=False,
                finish_reason=message.stop_reason,
                usage=turn_usage.to_dict() if turn_usage else None,
            )
        )
        if turn_usage is not None:
            session.record_usage(turn_usage)
        _record(session, message)
        if not message.tool_calls:
            return
        results = await run_tool_batch(session, message.tool_calls, signal, truncated=message.stop_reason == "length")
        for result in results:
            _record(session, result)
        signal.throw_if_aborted()
        if all(r.terminate for r in results):
            return
        if session.max_turns is not None and stats.turns >= session.max_turns:
            raise MaxTurnsReached()
        if session.max_budget_usd is not None and stats.usage.cost > session.max_budget_usd:
            raise BudgetExceeded()
