"""One batch of tool calls: validate in order, run concurrently, results in call order (Flue §4.3)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Protocol

from flue_tui.core.abort import ABORT_MESSAGE, AbortSignal
from flue_tui.core.decision import Decision
from flue_tui.core.details import wire as wire_details
from flue_tui.core.events import Event, ToolEnd, ToolOutput, ToolStart
from flue_tui.core.messages import ToolCall, ToolResultMessage
from flue_tui.core.traits import ToolOutcome, ToolTraits, traits_of
from flue_tui.core.validation import validate_arguments
from flue_tui.tools.base import Tool, ToolContext, ToolResult

# Consulted before each tool call runs, as (tool name, validated args, tool, tool call id): returns
# a Decision (core/decision.py): allow, maybe with a rewritten input, or deny with the refusal the
# model sees. The id lets a policy report which call it refused (print mode's permission_denials).
BeforeTool = Callable[[str, dict[str, Any], Tool, str], Awaitable[Decision]]
# Awaited after a tool ran, as (tool name, args, tool call id, result text, is_error): the user's
# PostToolUse hooks (flue_tui/hooks). A text is added to the result the model reads; None adds nothing.
AfterTool = Callable[[str, dict[str, Any], str, str, bool], Awaitable[str | None]]
# Entered around each tool call's run, as (the session running it, the tool's traits, its args):
# the file checkpoints claim what the call wrote once it has run to its end (runtime/checkpointing.py),
# so a rewind removes only what the session's own calls wrote. A `!` command is run inside it too.
WatchTool = Callable[[Any, ToolTraits, dict[str, Any]], contextlib.AbstractAsyncContextManager[None]]


class ToolSeams(Protocol):
    """What running a batch consults of a Session's seams (agent/seams.py)."""

    @property
    def before_tool(self) -> BeforeTool | None: ...
    @property
    def after_tool(self) -> AfterTool | None: ...
    @property
    def watch_tool(self) -> WatchTool | None: ...


class ToolHost(Protocol):
    """What running a batch needs of its Session (a Protocol: session.py imports this module)."""

    @property
    def tools(self) -> dict[str, Tool]: ...
    @property
    def seams(self) -> ToolSeams: ...
    def event(self, cls: type[Event], **fields: Any) -> Any: ...
    def emit(self, event: Event) -> None: ...


ABANDONED_SUFFIX = " The tool execution could not be confirmed cancelled and may still be running."
# How long an aborted tool may take to settle by itself before it is abandoned. The sandbox kills a
# command's process group on abort and returns once it has exited (Flue's local() does the same), so
# a killed command reports the plain abort; only a tool still busy after this gets the suffix.
SETTLE_S = 0.5
# Calls of one batch running at once. The reply is untrusted: one 4 MiB stream line names tens of
# thousands of calls, and read-only commands run unasked even in ask mode. The rest wait their turn,
# in call order (Claude Code bounds its parallel tool calls the same way).
MAX_RUNNING = 16
LENGTH_TEXT = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its '
    "arguments may be truncated. Re-issue the tool call with complete arguments."
)


Ended = tuple[ToolResult, ToolOutcome]


def _error(text: str, outcome: ToolOutcome = "error") -> Ended:
    return ToolResult(text=text, is_error=True), outcome


def _ended(result: ToolResult) -> Ended:
    return result, "error" if result.is_error else "ok"


def _exception_text(exc: BaseException) -> str:
    # Flue shows error.message alone; Python exceptions without a message still need words.
    return str(exc) or type(exc).__name__


async def _execute(tool: Tool, args: dict, ctx: ToolContext, watch: WatchTool | None) -> ToolResult:
    if watch is None:
        return await tool.execute(args, ctx)
    async with watch(ctx.session, traits_of(tool), args):
        return await tool.execute(args, ctx)


async def _run_one(tool: Tool, args: dict, ctx: ToolContext, signal: AbortSignal, watch: WatchTool | None) -> Ended:
    """Run a tool, abandoning it if the signal fires and it does not settle by itself at once."""
    if signal.aborted:
        return _error(ABORT_MESSAGE, "aborted")
    task = asyncio.ensure_future(_execute(tool, args, ctx, watch))
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
    if not task.done():
        # An abort-aware tool rejects with its own, more specific error, or settles once what it
        # started has stopped; only then is the suffix's "may still be running" not a lie.
        # A delegate is never abandoned: it settles through its child's own abort path, which is
        # bounded by this same rule one level down, and waiting keeps the child's end event ahead
        # of anything its parent does next, however slow the machine.
        await asyncio.wait({task}, timeout=None if tool.traits.kind == "delegate" else SETTLE_S)
    if not task.done():
        task.cancel()  # our tools clean up on cancel (the sandbox kills the process group)
        # An abandoned tool may still end with its own error; retrieve it so asyncio stays quiet.
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return _error(ABORT_MESSAGE + ABANDONED_SUFFIX, "aborted")
    if task.cancelled():
        return _error(ABORT_MESSAGE, "aborted")
    exc = task.exception()
    if exc is not None:
        # A tool that noticed the abort itself rejects with Flue's abort message (AbortError).
        return _error(_exception_text(exc), "aborted" if signal.aborted else "error")
    result = task.result()
    if signal.aborted:
        return _error(ABORT_MESSAGE, "aborted")  # no stale success after an abort
    return _ended(result)


async def _run_then_after(
    session: ToolHost,
    call: ToolCall,
    tool: Tool,
    args: dict,
    ctx: ToolContext,
    signal: AbortSignal,
    slots: asyncio.Semaphore,
) -> Ended:
    """The tool, then the PostToolUse hooks on what it returned (not on an aborted call)."""
    async with slots:  # free: taken without yielding, so the first calls still start in call order
        result, outcome = await _run_one(tool, args, ctx, signal, session.seams.watch_tool)
    if session.seams.after_tool is None or signal.aborted:
        return result, outcome
    note = await session.seams.after_tool(call.name, args, call.id, result.text, result.is_error)
    return (result if note is None else replace(result, text=f"{result.text}\n\n{note}")), outcome


async def _recorded(i: int, running: Awaitable[Ended], finish: Callable[[int, Ended], None]) -> None:
    """Run call i and record how it ended, inside its task: not in a done callback, which from
    Python 3.12 on gather() may overtake (it takes a task that has already finished in at once,
    before the task's callbacks ran), and the call would read as aborted though it ran."""
    try:
        ended = await running
    except Exception as exc:  # a PostToolUse hook's crash: the call still ends, saying why
        ended = _error(_exception_text(exc))
    finish(i, ended)


async def run_tool_batch(
    session: ToolHost, calls: list[ToolCall], signal: AbortSignal, *, truncated: bool = False
) -> list[ToolResultMessage]:
    results: list[Ended | None] = [None] * len(calls)
    started: list[float] = [0.0] * len(calls)
    durations: list[int | None] = [None] * len(calls)
    pending: list[tuple[int, asyncio.Task[None]]] = []
    slots = asyncio.Semaphore(MAX_RUNNING)

    def finish(i: int, ended: Ended) -> None:
        results[i] = ended
        result, outcome = ended
        call = calls[i]
        durations[i] = int((time.monotonic() - started[i]) * 1000)
        session.emit(
            session.event(
                ToolEnd,
                tool_name=call.name,
                tool_call_id=call.id,
                is_error=result.is_error,
                result={"content": [{"type": "text", "text": result.text}], "details": wire_details(result.details)},
                duration_ms=durations[i],
                outcome=outcome,
            )
        )

    for i, call in enumerate(calls):
        tool = session.tools.get(call.name)
        traits = traits_of(tool)
        started[i] = time.monotonic()
        session.emit(
            session.event(
                ToolStart,
                tool_name=call.name,
                tool_call_id=call.id,
                args=call.arguments,
                kind=traits.kind,
                traits=traits,
            )
        )
        if truncated:
            finish(i, _error(LENGTH_TEXT.format(name=call.name), "cut"))
            continue
        if tool is None:
            finish(i, _error(f"Tool {call.name} not found"))
            continue
        if call.refusal is not None:
            finish(i, _error(call.refusal))
            continue
        args, problem = validate_arguments(call.name, tool.parameters, call.arguments)
        if problem is not None or args is None:
            finish(i, _error(problem or "invalid arguments"))
            continue
        if session.seams.before_tool is not None:
            # The policy judges against the files (a repository's git config, symlinks), so this
            # call is judged once the batch's earlier file changes have landed: a write and a
            # `git diff` in one reply must not have the diff judged before the write made a repo.
            edits = [t for j, t in pending if traits_of(session.tools.get(calls[j].name)).kind == "edit"]
            if edits:
                await asyncio.wait(edits)
            # The permission policy's decision: run (with the input as the user rewrote it, if they
            # did) or refuse, the model reading why.
            decision = await session.seams.before_tool(call.name, args, tool, call.id)
            started[i] = time.monotonic()  # a tool's duration excludes the wait for the user's answer
            if decision.verdict != "allow":  # ... and a refused one never ran
                finish(i, _error(decision.reason or "Permission denied.", "denied"))
                continue
            if decision.args is not None:
                args = decision.args
        if signal.aborted:
            finish(i, _error(ABORT_MESSAGE, "aborted"))
            continue

        def on_output(stream: str, chunk: str, _id: str = call.id) -> None:
            session.emit(session.event(ToolOutput, tool_call_id=_id, stream=stream, chunk=chunk))

        ctx = ToolContext(call_id=call.id, signal=signal, on_output=on_output, session=session)
        # Started in call order, so whatever a tool does before its first await (taking a file
        # lock) happens in dispatch order.
        running = _run_then_after(session, call, tool, args, ctx, signal, slots)
        pending.append((i, asyncio.ensure_future(_recorded(i, running, finish))))

    if pending:
        await asyncio.gather(*(t for _, t in pending), return_exceptions=True)
    out = []
    for call, ended, duration in zip(calls, results, durations, strict=True):
        result, outcome = ended or _error(ABORT_MESSAGE, "aborted")
        out.append(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                text=result.text,
                is_error=result.is_error,
                details=wire_details(result.details),
                terminate=result.terminate,
                duration_ms=duration,
                outcome=outcome,
                kind=traits_of(session.tools.get(call.name)).kind,
            )
        )
    return out
