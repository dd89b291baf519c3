"""Claude Code's stream-json from a real session (in process, real litellm, the scripted server):
every line is read by the Agent SDK's own parser, none dropped, sub-agents tagged with their task."""

from __future__ import annotations

import asyncio

import pytest

from flue_tui.agent.compaction import CompactionConfig
from flue_tui.config.settings import Settings
from flue_tui.headless.claude.result import result_message
from flue_tui.headless.claude.stream import ClaudeStream
from flue_tui.runtime.wiring import Runtime
from tests.fakellm import Call, Turn

parser = pytest.importorskip("claude_agent_sdk._internal.message_parser")
types = pytest.importorskip("claude_agent_sdk.types")


def _session(fakellm, tmp_path, monkeypatch, **settings_kw):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = Settings.from_env(
        model="openai/fake",
        cwd=str(tmp_path),
        permission_mode="yolo",
        api_base=fakellm.base_url,
        retry_base_ms=5,
        **settings_kw,
    )
    return Runtime(settings).new_session()[0]


def test_every_line_parses_and_sub_agents_carry_their_task(fakellm, tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("alpha\n")
    fakellm.script(
        [
            Turn(
                reasoning="Delegate.",
                text="Asking a helper.",
                calls=[Call("task", {"prompt": "read a.txt", "agent": "flue-general"}, id="task_1")],
            ),
            Turn(calls=[Call("read", {"path": "a.txt"}, id="child_read"), Call("read", {"path": "nope"}, id="bad")]),
            Turn(text="It says alpha."),
            Turn(text="Done: alpha."),
        ]
    )
    session = _session(fakellm, tmp_path, monkeypatch)
    lines: list[dict] = []
    session.subscribe(ClaudeStream(lines.append, root=session.id, partial=True, model="openai/fake"))
    result = asyncio.run(session.prompt("what is in a.txt?"))
    lines.append(result_message(result, session_id=session.id, model="openai/fake", messages=session.messages))
    parsed = [parser.parse_message(line) for line in lines]
    assert all(p is not None for p in parsed), [line for line, p in zip(lines, parsed, strict=True) if p is None]
    assert {line["session_id"] for line in lines} == {session.id}
    child = [p for p in parsed if getattr(p, "parent_tool_use_id", None) == "task_1"]
    # The child's prompt, its streamed turns, its tool calls and their results, all under the task call.
    assert any(isinstance(p, types.UserMessage) and p.content[0].text == "read a.txt" for p in child)
    results = {
        b.tool_use_id: b
        for p in child
        if isinstance(p, types.UserMessage)
        for b in p.content
        if isinstance(b, types.ToolResultBlock)
    }
    assert results["child_read"].is_error is False and results["bad"].is_error is True
    assert any(isinstance(p, types.StreamEvent) for p in child)
    root = [p for p in parsed if isinstance(p, types.AssistantMessage) and p.parent_tool_use_id is None]
    first = root[0]
    assert [type(b).__name__ for b in first.content] == ["ThinkingBlock", "TextBlock", "ToolUseBlock"]
    assert first.model == "openai/fake" and first.message_id.startswith("msg_") and first.usage["output_tokens"] == 5
    assert first.stop_reason == "tool_use" and root[-1].stop_reason == "end_turn"
    task_result = next(
        b
        for p in parsed
        if isinstance(p, types.UserMessage) and p.parent_tool_use_id is None
        for b in p.content
        if isinstance(b, types.ToolResultBlock)
    )
    assert task_result.tool_use_id == "task_1" and "alpha" in task_result.content
    # Partials: one Anthropic stream per turn, the final message's id in message_start.
    events = [p.event for p in parsed if isinstance(p, types.StreamEvent) and p.parent_tool_use_id is None]
    assert events[0]["type"] == "message_start" and events[0]["message"]["id"] == first.message_id
    text = "".join(e["delta"].get("text", "") for e in events if e["type"] == "content_block_delta")
    assert text == "Asking a helper.Done: alpha."
    assert [e["type"] for e in events].count("message_stop") == 2
    assert isinstance(parsed[-1], types.ResultMessage) and parsed[-1].result == "Done: alpha."


def test_compaction_is_a_compact_boundary(fakellm, tmp_path, monkeypatch):
    fakellm.script([Turn(text="one"), Turn(text="two"), Turn(text="## Goal\nsummary"), Turn(text="prefix")])
    session = _session(fakellm, tmp_path, monkeypatch)
    session.compaction = CompactionConfig(auto=False, keep_recent_tokens=1)
    lines: list[dict] = []
    session.subscribe(ClaudeStream(lines.append, root=session.id, partial=False))

    async def run() -> None:
        await session.prompt("first")
        await session.prompt("second")
        done = await session.compact()
        assert done.text == "Compacted.", done

    asyncio.run(run())
    boundary = [line for line in lines if line.get("subtype") == "compact_boundary"]
    assert len(boundary) == 1 and boundary[0]["compact_metadata"]["trigger"] == "manual"
    assert isinstance(parser.parse_message(boundary[0]), types.SystemMessage)


def test_fallback_model_serves_the_turn_the_main_model_cannot(fakellm, tmp_path, monkeypatch):
    from flue_tui.model.fallback import FallbackClient
    from flue_tui.model.litellm_client import LiteLLMClient

    fakellm.script(
        [
            Turn(status=529, error_message="Overloaded", match=lambda body: body["model"] == "main"),
            Turn(text="from the fallback", match=lambda body: body["model"] == "spare"),
            Turn(text="still the fallback", match=lambda body: body["model"] == "spare"),
        ]
    )
    session = _session(fakellm, tmp_path, monkeypatch)
    notes: list[str] = []
    session.model = FallbackClient(
        LiteLLMClient("openai/main", api_base=fakellm.base_url),
        LiteLLMClient("openai/spare", api_base=fakellm.base_url),
        notes.append,
    )

    async def run() -> tuple:
        return await session.prompt("hi"), await session.prompt("again")

    first, second = asyncio.run(run())
    assert (first.text, second.text) == ("from the fallback", "still the fallback")
    assert [r["model"] for r in fakellm.requests] == ["main", "spare", "spare"]  # no retry storm on the main one
    assert notes == [
        "openai/main is unavailable (OpenAI returned 529: Overloaded); using the fallback model openai/spare."
    ]


def test_tools_flag_restricts_sub_agents_too(fakellm, tmp_path, monkeypatch):
    """The session is built with only these tools, and so is every child (no factory swapped after)."""
    fakellm.script(
        [
            Turn(calls=[Call("task", {"prompt": "run it", "agent": "flue-general"}, id="t")]),
            Turn(text="child done"),
            Turn(text="parent done"),
        ]
    )
    session = _session(fakellm, tmp_path, monkeypatch, tools=frozenset({"read", "task"}))
    assert set(session.tools) == {"read", "task"}
    asyncio.run(session.prompt("delegate"))
    offered = [sorted(t["function"]["name"] for t in r.get("tools", [])) for r in fakellm.requests]
    assert offered == [["read", "task"], ["read", "task"], ["read", "task"]]


def test_a_retried_model_error_is_an_api_retry_message(fakellm, tmp_path, monkeypatch):
    fakellm.script([Turn.rate_limit(), Turn(text="ok")])
    session = _session(fakellm, tmp_path, monkeypatch)
    lines: list[dict] = []
    session.subscribe(ClaudeStream(lines.append, root=session.id, partial=False))
    asyncio.run(session.prompt("hi"))
    [retry] = [line for line in lines if line.get("subtype") == "api_retry"]
    assert retry["attempt"] == 1 and retry["max_retries"] == 3 and retry["error"] == "rate_limit"
    assert isinstance(parser.parse_message(retry), types.SystemMessage)
