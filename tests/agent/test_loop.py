"""The agent loop over the real litellm client, against the scripted server."""

from __future__ import annotations

import asyncio
import threading

from flue_tui.core.events import Retry, TextDelta, ToolEnd
from flue_tui.core.messages import AssistantMessage, ToolResultMessage
from flue_tui.ui.logline import log_line
from tests.agent.conftest import EchoAfter
from tests.fakellm import Call, Turn


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "tool"]


async def test_parallel_calls_run_concurrently_and_results_keep_call_order(fakellm, make_session, record):
    tool = EchoAfter()
    fakellm.script(
        [
            Turn(
                calls=[
                    Call("echo_after", {"text": "slow", "seconds": 0.4}),
                    Call("echo_after", {"text": "fast", "seconds": 0.05}),
                ]
            ),
            Turn(text="done"),
        ]
    )
    session = make_session([tool])
    events = record(session)
    result = await session.prompt("go")
    assert result.text == "done" and not result.is_error
    assert tool.max_active == 2 and tool.started == ["slow", "fast"]
    sent = tool_messages(fakellm.requests[1])
    assert [m["content"] for m in sent] == ["echo: slow", "echo: fast"]
    # The UI sees the fast one finish first; the history keeps call order.
    ends = [e.result["content"][0]["text"] for e in events if isinstance(e, ToolEnd)]
    assert ends == ["echo: fast", "echo: slow"]
    results = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    assert [r.text for r in results] == ["echo: slow", "echo: fast"]


async def test_unknown_tool_and_invalid_arguments_get_flue_texts(fakellm, make_session):
    fakellm.script(
        [
            Turn(
                calls=[
                    Call("nope", {"x": 1}),
                    Call("echo_after", {"seconds": "abc"}),
                    Call("echo_after", {"text": "ok", "seconds": "0"}),
                ]
            ),
            Turn(text="fine"),
        ]
    )
    session = make_session([EchoAfter()])
    await session.prompt("go")
    sent = tool_messages(fakellm.requests[1])
    assert sent[0]["content"] == "Tool nope not found"
    assert sent[1]["content"] == (
        'Validation failed for tool "echo_after":\n'
        "  - text: must have required properties text\n"
        "  - seconds: must be number\n\n"
        "Received arguments:\n"
        '{\n  "seconds": "abc"\n}'
    )
    # TypeBox's Value.Convert coerces "0" to a number, so the third call runs.
    assert sent[2]["content"] == "echo: ok"
    results = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    assert [r.is_error for r in results] == [True, True, False]


async def test_tool_exception_text_is_the_message_only(fakellm, make_session):
    fakellm.script(
        [Turn(calls=[Call("echo_after", {"text": "boom"}), Call("echo_after", {"text": "crash"})]), Turn(text="ok")]
    )
    session = make_session([EchoAfter()])
    await session.prompt("go")
    assert [m["content"] for m in tool_messages(fakellm.requests[1])] == ["it went boom", "unexpected crash"]


async def test_output_token_limit_runs_none_of_the_calls(fakellm, make_session):
    tool = EchoAfter()
    fakellm.script([Turn(calls=[Call("echo_after", {"text": "a"})], finish_reason="length"), Turn(text="ok")])
    session = make_session([tool])
    await session.prompt("go")
    assert tool.started == []
    assert tool_messages(fakellm.requests[1])[0]["content"] == (
        'Tool call "echo_after" was not executed: the response hit the output token limit, so its '
        "arguments may be truncated. Re-issue the tool call with complete arguments."
    )


async def test_calls_without_index_are_kept_apart_by_id(fakellm, make_session):
    fakellm.script(
        [
            Turn(omit_index=True, calls=[Call("echo_after", {"text": "one"}), Call("echo_after", {"text": "two"})]),
            Turn(text="ok"),
        ]
    )
    session = make_session([EchoAfter()])
    await session.prompt("go")
    assert [m["content"] for m in tool_messages(fakellm.requests[1])] == ["echo: one", "echo: two"]


async def test_abort_during_tools_leaves_every_call_answered(fakellm, make_session):
    fakellm.script([Turn(calls=[Call("echo_after", {"text": "long", "seconds": 30})]), Turn(text="again")])
    tool = EchoAfter()
    session = make_session([tool])
    task = asyncio.ensure_future(session.prompt("go"))
    while not tool.started:  # abandon needs a tool that is really running (else: plain abort)
        await asyncio.sleep(0.01)
    session.abort()
    result = await task
    assert result.is_error and result.aborted and result.error == "This operation was aborted"
    last = session.messages[-1]
    assert isinstance(last, ToolResultMessage) and last.is_error
    assert last.text == (
        "This operation was aborted The tool execution could not be confirmed cancelled and may still be running."
    )
    # The session is still usable and its next request is a valid history.
    assert (await session.prompt("continue")).text == "again"
    wire = fakellm.requests[-1]["messages"]
    call_ids = [tc["id"] for m in wire if m["role"] == "assistant" for tc in m.get("tool_calls", [])]
    assert call_ids == [m["tool_call_id"] for m in wire if m["role"] == "tool"]


async def test_abort_mid_stream_drops_the_partial_turn_from_context(fakellm, make_session):
    # Held after a few chunks until the abort: the stream cannot have ended first on a slow box.
    rest = threading.Event()
    fakellm.script([Turn(text="x" * 400, chunk_delay=0.05, stall_after=4, hold=rest), Turn(text="second")])
    session = make_session([])
    streamed = asyncio.Event()
    session.subscribe(lambda event: streamed.set() if isinstance(event, TextDelta) else None)
    task = asyncio.ensure_future(session.prompt("first"))
    await asyncio.wait_for(streamed.wait(), 120)  # some text has arrived (waited for, not timed)
    session.abort()
    result = await task
    rest.set()
    assert result.aborted
    partial = session.messages[-1]
    assert isinstance(partial, AssistantMessage) and partial.stop_reason == "aborted" and partial.text
    await session.prompt("next")
    roles = [m["role"] for m in fakellm.requests[-1]["messages"]]
    assert roles == ["system", "user", "user"]


async def test_rate_limit_is_retried_then_succeeds(fakellm, make_session, record):
    fakellm.script([Turn.rate_limit(error_message="Rate limit reached"), Turn(text="after retry")])
    session = make_session([])
    events = record(session)
    result = await session.prompt("go")
    assert result.text == "after retry" and not result.is_error
    assert len(fakellm.requests) == 2
    logs = [e for e in events if e.type == "log"]
    assert [e.message for e in logs] == ["[flue:model-retry] Retrying transient model error"]
    assert logs[0].attributes["attempt"] == 1 and logs[0].attributes["maxRetries"] == 3
    # A typed event in process (its surfaces match the type), Flue's log event on the wire.
    assert isinstance(logs[0], Retry) and (logs[0].attempt, logs[0].status) == (1, 429)
    assert list(logs[0].to_dict()) == ["type", "session", "level", "message", "attributes"]
    # Every surface words it with the attempt, what failed and the wait (ui/logline.py).
    line = log_line(logs[0])
    delay = logs[0].attributes["delayMs"] / 1000
    assert line == (
        "[flue:model-retry] Retrying transient model error (attempt 1 of 3, status 429, rate limit, "
        f"waiting {delay:.1f} s): {logs[0].attributes['error']}"
    ), line


async def test_server_errors_exhaust_three_retries(fakellm, make_session):
    fakellm.script([Turn(status=500, error_message="upstream exploded", repeat=4)])
    session = make_session([])
    result = await session.prompt("go")
    assert len(fakellm.requests) == 4  # the first attempt and three retries
    assert result.is_error and result.subtype == "error_during_execution"
    assert result.error.startswith("prompt failed: ") and "upstream exploded" in result.error


async def test_max_turns_stops_with_history_valid(fakellm, make_session):
    fakellm.script([Turn(calls=[Call("echo_after", {"text": "a"})], repeat=5)])
    session = make_session([EchoAfter()], max_turns=2)
    result = await session.prompt("loop forever")
    assert result.subtype == "error_max_turns" and result.is_error and result.num_turns == 2
    assert isinstance(session.messages[-1], ToolResultMessage)
    assert len(fakellm.requests) == 2


async def test_usage_and_cost_are_summed(fakellm, make_session):
    fakellm.script(
        [Turn(calls=[Call("echo_after", {"text": "a"})], usage=(100, 20, 40)), Turn(text="ok", usage=(200, 30))]
    )
    session = make_session([EchoAfter()])
    result = await session.prompt("go")
    assert (result.usage.input, result.usage.output, result.usage.cache_read) == (260, 50, 40)
    assert result.usage.cost == 0.0  # an unmapped model is free, not an error
    assert fakellm.requests[0]["stream_options"] == {"include_usage": True}
