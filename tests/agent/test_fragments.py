"""Streams are untrusted in shape: tool calls come out whole whatever the split, and tokens the
provider counted before an abort are kept in the totals. Real litellm against the stand-ins."""

from __future__ import annotations

import asyncio
import threading

import pytest

from flue_tui.agent.session import Session
from flue_tui.core.messages import AssistantMessage
from flue_tui.model.litellm_client import LiteLLMClient
from tests.agent.conftest import EchoAfter
from tests.fakellm import Call, Turn

TWO_CALLS = [Call("echo_after", {"text": "one"}), Call("echo_after", {"text": "two"})]


@pytest.mark.parametrize(
    "shape",
    [
        {"name_pieces": 3},  # a name split over three chunks is one tool, not "ech", "o_a", "fter"
        {"name_pieces": 3, "omit_index": True},  # ... told apart by id alone
        {"name_pieces": 2, "omit_index": True, "omit_ids": True},  # neither id nor index: by the names
    ],
)
async def test_tool_calls_are_assembled_whatever_the_split(fakellm, make_session, shape):
    tool = EchoAfter()
    fakellm.script([Turn(calls=TWO_CALLS, **shape), Turn(text="done")])
    session = make_session([tool])
    result = await session.prompt("go")
    assert result.text == "done", result
    calls = next(m for m in session.messages if isinstance(m, AssistantMessage)).tool_calls
    assert [(c.name, c.arguments) for c in calls] == [("echo_after", {"text": "one"}), ("echo_after", {"text": "two"})]
    assert tool.started == ["one", "two"]
    sent = fakellm.requests[1]["messages"]
    assert [m["content"] for m in sent if m["role"] == "tool"] == ["echo: one", "echo: two"]
    assert len({c.id for c in calls}) == 2  # each call answered under its own id


async def test_id_less_calls_get_ids_unique_across_turns(fakellm, make_session):
    tool = EchoAfter()
    bare = {"omit_index": True, "omit_ids": True}
    fakellm.script(
        [
            Turn(calls=[Call("echo_after", {"text": "one"})], **bare),
            Turn(calls=[Call("echo_after", {"text": "two"})], **bare),
            Turn(text="done"),
        ]
    )
    session = make_session([tool])
    assert (await session.prompt("go")).text == "done"
    ids = [c.id for m in session.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert len(ids) == 2 and ids[0] != ids[1]


async def test_usage_reported_before_an_abort_is_kept(fakeanthropic, monkeypatch):
    """Anthropic reports the input tokens in its first event; an abort after it still counts them."""
    monkeypatch.setenv("ANTHROPIC_API_BASE", fakeanthropic.base_url)
    rest = threading.Event()  # held after two text deltas until the abort: the stream cannot end first
    fakeanthropic.script([Turn(text="a long answer " * 50, usage=(1234, 99), stall_after=5, hold=rest)])
    client = LiteLLMClient("anthropic/claude-sonnet-4-5", api_key="sk-ant-test")
    session = Session(model=client, tools=[], system_prompt="You are a test.", retry_base_ms=5)
    seen_text = asyncio.Event()
    session.subscribe(lambda e: seen_text.set() if e.type == "text_delta" else None)
    run = asyncio.ensure_future(session.prompt("go"))
    await asyncio.wait_for(seen_text.wait(), 60)
    session.abort()
    result = await asyncio.wait_for(run, 60)
    rest.set()
    assert result.aborted
    assert session.usage.input == 1234 and result.usage.input == 1234
    partial = next(m for m in session.messages if isinstance(m, AssistantMessage))
    assert partial.stop_reason == "aborted" and partial.usage is not None and partial.usage.input == 1234
