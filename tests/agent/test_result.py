"""finish / give_up semantics in a session (flue-behaviour.md §9)."""

from __future__ import annotations

from flue_tui.tools.result import REMINDER
from tests.agent.conftest import EchoAfter
from tests.fakellm import Call, Turn


async def test_give_up_is_an_error_with_the_reason(fakellm, make_session):
    fakellm.script(
        [
            Turn(calls=[Call("give_up", {"reason": "   "})]),
            Turn(calls=[Call("give_up", {"reason": "no such data"}), Call("finish", {"result": 1})]),
        ]
    )
    session = make_session([EchoAfter()])
    result = await session.prompt("find it", result_schema={"type": "integer"})
    assert result.is_error and result.error == "The agent gave up: no such data"
    texts = [m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"]
    assert texts == ["`give_up` requires a non-empty `reason` string."]
    last = [m.text for m in session.messages if m.role == "toolResult"][-2:]
    assert last == [
        "Acknowledged.",
        "The task was already given up; it cannot be resumed. Do not call this tool again.",
    ]
    assert "finish" not in session.tools  # result tools exist only during that prompt


async def test_model_that_never_finishes_gets_33_attempts(fakellm, make_session):
    fakellm.script([Turn(text="the answer is 4", repeat=33)])
    session = make_session([EchoAfter()])
    result = await session.prompt("2+2?", result_schema={"type": "integer"})
    assert result.is_error and result.error == "Agent did not call `finish` or `give_up` after 33 attempts."
    assert len(fakellm.requests) == 33
    second = fakellm.requests[1]["messages"]
    assert second[-1] == {"role": "user", "content": REMINDER} and second[-2]["role"] == "assistant"
    assert all(getattr(m, "content", None) != REMINDER for m in session.messages)  # never stored


async def test_enveloped_finish_and_second_finish(fakellm, make_session):
    fakellm.script([Turn(calls=[Call("finish", {"result": 4}), Call("finish", {"result": 5})])])
    session = make_session([EchoAfter()])
    result = await session.prompt("2+2?", result_schema={"type": "integer"})
    assert not result.is_error and result.structured_output == 4
    texts = [m.text for m in session.messages if m.role == "toolResult"]
    assert texts == [
        "Result accepted. The task is complete.",
        "A result was already submitted; the task is complete. Do not call this tool again.",
    ]
