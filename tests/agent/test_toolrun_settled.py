"""A call that finished is reported as finished, however the loop happened to order the batch's last
steps. Python 3.12+ `gather()` takes an already-finished task in at once, before that task's own
done callbacks have run; the batch recorded each result in such a callback, so a call that ended
just before the batch's last policy answer was read as "This operation was aborted" with no
duration (CI on 3.13: `touch made` ran, the bash call read as aborted)."""

from __future__ import annotations

import asyncio
from typing import Any

from flue_tui.agent.seams import Seams
from flue_tui.agent.session import Session
from flue_tui.agent.toolrun import run_tool_batch
from flue_tui.core.abort import AbortSignal
from flue_tui.core.decision import ALLOW, Decision
from flue_tui.core.events import ToolEnd
from flue_tui.core.messages import ToolCall
from tests.agent.conftest import EchoAfter


async def _batch(steps: int) -> tuple[list[Any], list[ToolEnd]]:
    """The first call runs; the policy's answer to the second takes `steps` turns of the loop."""

    async def before_tool(name: str, args: dict[str, Any], tool: Any, call_id: str) -> Decision:
        if args["text"] == "first":
            return ALLOW
        for _ in range(steps):
            await asyncio.sleep(0)
        return Decision("deny", "not this one")

    session = Session(model=None, tools=[EchoAfter()], cwd=".", seams=Seams(before_tool=before_tool))  # type: ignore[arg-type]  # no model turn here
    ends: list[ToolEnd] = []
    session.subscribe(lambda e: ends.append(e) if isinstance(e, ToolEnd) else None)
    calls = [
        ToolCall(id="call_a", name="echo_after", arguments={"text": "first", "seconds": 0}),
        ToolCall(id="call_b", name="echo_after", arguments={"text": "second"}),
    ]
    return await run_tool_batch(session, calls, AbortSignal()), ends


async def test_a_call_that_ended_just_before_the_last_answer_keeps_its_result():
    # One of these step counts lands the answer right after the first call's task has finished
    # (which one depends on the tool and the Python version, so a range is tried; each is the same
    # on every run: nothing here waits on time or on another process).
    for steps in range(16):
        (first, second), ends = await _batch(steps)
        assert (first.text, first.is_error, first.outcome) == ("echo: first", False, "ok"), steps
        assert first.duration_ms is not None, steps
        assert (second.text, second.outcome) == ("not this one", "denied"), steps
        assert sorted(e.tool_call_id for e in ends) == ["call_a", "call_b"], steps  # one end each


async def test_a_crash_after_the_tool_ends_the_call_with_why():
    # What runs after the tool (the PostToolUse hooks) failing unexpectedly: before, the call had no
    # end event at all (a front end showed it running for ever) and the model read it as aborted.
    async def after_tool(name: str, args: dict[str, Any], call_id: str, text: str, is_error: bool) -> str | None:
        raise RuntimeError("the hook runner broke")

    session = Session(model=None, tools=[EchoAfter()], cwd=".", seams=Seams(after_tool=after_tool))  # type: ignore[arg-type]
    ends: list[ToolEnd] = []
    session.subscribe(lambda e: ends.append(e) if isinstance(e, ToolEnd) else None)
    call = ToolCall(id="call_c", name="echo_after", arguments={"text": "ran"})
    [result] = await run_tool_batch(session, [call], AbortSignal())
    assert (result.text, result.is_error, result.outcome) == ("the hook runner broke", True, "error")
    assert [e.tool_call_id for e in ends] == ["call_c"] and result.duration_ms is not None
