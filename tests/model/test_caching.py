"""Prompt caching: breakpoints on Anthropic-served models, observable as cache reads at the API."""

from __future__ import annotations

import asyncio
import json

import pytest

from flue_tui.core.messages import Usage
from flue_tui.model.caching import anthropic_served, with_breakpoints
from tests.fakellm import Call, Turn


def marks(body: dict) -> int:
    return json.dumps(body).count('"cache_control"')


def script_loop(llm, rounds: int) -> None:
    llm.script([Turn(text=f"step {n}", calls=[Call("lookup", {"word": f"w{n}"})]) for n in range(rounds)])
    llm.script(Turn(text="done"))


def test_tool_loop_reads_the_cache_from_the_second_request_on(claude_session, anthropic_env):
    script_loop(anthropic_env, 4)
    session = claude_session()
    result = asyncio.run(session.prompt("define some words"))
    assert not result.is_error, result.error
    assert not anthropic_env.rejections
    bodies = anthropic_env.requests
    assert len(bodies) == 5 and all(1 <= marks(b) <= 4 for b in bodies)
    usages = anthropic_env.usages
    assert usages[0]["cache_read_input_tokens"] == 0 and usages[0]["cache_creation_input_tokens"] > 1000
    for before, now in zip(usages, usages[1:], strict=False):
        # Everything the previous request wrote is read back; only the new tail is written.
        assert (
            now["cache_read_input_tokens"] == before["cache_read_input_tokens"] + before["cache_creation_input_tokens"]
        )
    # The app's usage carries the cache counts the API reported.
    assert result.usage.cache_read == sum(u["cache_read_input_tokens"] for u in usages)
    assert result.usage.cache_write == sum(u["cache_creation_input_tokens"] for u in usages)
    assert result.usage.input == sum(u["input_tokens"] for u in usages)


def test_a_resumed_session_reads_its_whole_history(claude_session, anthropic_env):
    script_loop(anthropic_env, 2)
    first = claude_session()
    asyncio.run(first.prompt("define some words"))
    written = sum(u["cache_creation_input_tokens"] for u in anthropic_env.usages)
    anthropic_env.script(Turn(text="again"))
    resumed = claude_session()
    resumed.messages = list(first.messages)  # what resume restores from the store
    asyncio.run(resumed.prompt("one more"))
    last = anthropic_env.usages[-1]
    assert last["cache_read_input_tokens"] == written  # the whole previous conversation
    assert last["input_tokens"] < 50


def test_prompt_cache_off_sends_no_breakpoints(claude_session, anthropic_env):
    script_loop(anthropic_env, 1)
    asyncio.run(claude_session(prompt_cache=False).prompt("define"))
    assert [marks(b) for b in anthropic_env.requests] == [0, 0]
    assert all(u["cache_read_input_tokens"] == 0 for u in anthropic_env.usages)


def test_many_parallel_tool_results_still_read_the_previous_prefix(claude_session, anthropic_env):
    # 12 calls add 25 blocks in one round: more than the API's 20-block look-back.
    anthropic_env.script(
        [
            Turn(calls=[Call("lookup", {"word": f"w{n}"}) for n in range(12)]),
            Turn(calls=[Call("lookup", {"word": "x"})]),
            Turn(text="done"),
        ]
    )
    asyncio.run(claude_session().prompt("define many"))
    assert not anthropic_env.rejections
    first, second, third = anthropic_env.usages
    for before, now in ((first, second), (second, third)):
        assert (
            now["cache_read_input_tokens"] == before["cache_read_input_tokens"] + before["cache_creation_input_tokens"]
        )


@pytest.mark.parametrize(
    ("model", "served"),
    [
        ("anthropic/claude-sonnet-4-5", True),
        ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("vertex_ai/claude-sonnet-4-5@20250929", True),
        ("openrouter/anthropic/claude-sonnet-4.5", True),
        ("claude-sonnet-4-5", True),
        ("openai/gpt-4.1", False),
        ("gemini/gemini-2.5-pro", False),
        ("openrouter/openai/gpt-4.1", False),
        ("ollama_chat/qwen3:8b", False),
        ("bedrock/amazon.nova-pro-v1:0", False),
    ],
)
def test_which_models_get_breakpoints(model, served):
    assert anthropic_served(model) is served


def test_breakpoints_never_touch_the_callers_messages_and_stay_within_four():
    wire = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
        {"role": "tool", "tool_call_id": "1", "content": "r"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "2"}]},
        {"role": "tool", "tool_call_id": "2", "content": "r2"},
    ]
    snapshot = repr(wire)
    out, _ = with_breakpoints(wire, [{"type": "function", "function": {"name": "t"}}])
    assert repr(wire) == snapshot
    marked = [i for i, m in enumerate(out) if "cache_control" in repr(m)]
    assert marked == [0, 3, 5]
    # A one-shot request without tools (the compaction summariser) marks only its system prompt.
    out, _ = with_breakpoints(wire[:2], [])
    assert [i for i, m in enumerate(out) if "cache_control" in repr(m)] == [0]


def test_usage_dict_says_whether_the_cost_is_known():
    total = Usage(cost=1.0)
    total.add(Usage(cost=0.0, priced=False))
    assert total.known_cost is None and total.to_dict()["priced"] is False


def test_after_a_compaction_the_tools_and_system_prefix_is_still_read(claude_session, anthropic_env):
    from flue_tui.core.messages import CompactionMessage

    script_loop(anthropic_env, 1)
    session = claude_session()
    asyncio.run(session.prompt("define"))
    session.messages.append(CompactionMessage(summary="The user asked for definitions.", kept=0))
    anthropic_env.script(Turn(text="after"))
    asyncio.run(session.prompt("continue"))
    after = anthropic_env.usages[-1]
    # The lookup tool's description alone is over 2,000 tokens; the history before the summary is gone.
    assert 2000 < after["cache_read_input_tokens"] < anthropic_env.usages[1]["cache_read_input_tokens"]
