"""The strict Anthropic and Ollama stand-ins refuse what the real APIs refuse, in their words."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from tests.fakellm import Call, FakeAnthropic, FakeOllama, Turn
from tests.fakellm.anthropic_rules import sign

HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json"}
TOOL = {"name": "read", "description": "r", "input_schema": {"type": "object", "properties": {}}}


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers or {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def messages(llm: FakeAnthropic, body: dict[str, Any]) -> tuple[int, Any]:
    return post(llm.base_url + "/v1/messages", {"model": "claude-sonnet-4-5", "max_tokens": 100, **body}, HEADERS)


def anthropic_error(status: int, reply: Any) -> str:
    assert reply["type"] == "error" and set(reply["error"]) == {"type", "message"}, reply
    return reply["error"]["message"]


def test_anthropic_requires_max_tokens_and_alternating_roles() -> None:
    with FakeAnthropic([Turn(text="hi", repeat=5)]) as llm:
        status, reply = post(
            llm.base_url + "/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "x"}]}, HEADERS
        )
        assert status == 400 and anthropic_error(status, reply) == "max_tokens: Field required"
        status, reply = messages(
            llm, {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
        )
        assert status == 400 and "roles must alternate" in anthropic_error(status, reply)
        status, reply = post(
            llm.base_url + "/v1/messages",
            {"model": "m", "max_tokens": 5, "messages": []},
            {"content-type": "application/json"},
        )
        assert status == 401 and reply["error"]["type"] == "authentication_error"
        assert llm.remaining == 1  # rejected requests consume no scripted turn


def test_anthropic_pairs_tool_use_with_tool_result_and_caps_breakpoints() -> None:
    with FakeAnthropic([Turn(text="hi")]) as llm:
        use = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]}
        status, reply = messages(
            llm, {"messages": [{"role": "user", "content": "a"}, use, {"role": "user", "content": "no result"}]}
        )
        assert "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1" in anthropic_error(
            status, reply
        )
        cached = [{"type": "text", "text": f"p{n}", "cache_control": {"type": "ephemeral"}} for n in range(5)]
        status, reply = messages(llm, {"messages": [{"role": "user", "content": cached}]})
        assert anthropic_error(status, reply) == "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_anthropic_thinking_blocks_must_come_back_with_their_signature() -> None:
    thinking = {"type": "enabled", "budget_tokens": 1024}
    with FakeAnthropic([Turn(text="ok")]) as llm:
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}
        bare = {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "let me look"},
                {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}},
            ],
        }
        status, reply = messages(
            llm,
            {
                "max_tokens": 2000,
                "thinking": thinking,
                "tools": [TOOL],
                "messages": [{"role": "user", "content": "a"}, bare, result],
            },
        )
        assert anthropic_error(status, reply).startswith(
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`."
        )
        altered = {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "changed", "signature": sign("original")}, *bare["content"]],
        }
        status, reply = messages(
            llm,
            {
                "max_tokens": 2000,
                "thinking": thinking,
                "tools": [TOOL],
                "messages": [{"role": "user", "content": "a"}, altered, result],
            },
        )
        assert anthropic_error(status, reply) == "messages.1.content.0: Invalid `signature` in `thinking` block"
        kept = {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": "original", "signature": sign("original")}, *bare["content"]],
        }
        status, reply = messages(
            llm,
            {
                "max_tokens": 2000,
                "thinking": thinking,
                "tools": [TOOL],
                "messages": [{"role": "user", "content": "a"}, kept, result],
            },
        )
        assert status == 200 and reply["content"][0]["text"] == "ok"


def test_anthropic_reports_cache_reads_for_a_repeated_prefix() -> None:
    system = [{"type": "text", "text": "s" * 8000, "cache_control": {"type": "ephemeral"}}]
    with FakeAnthropic([Turn(text="a"), Turn(text="b"), Turn(text="c")]) as llm:
        messages(llm, {"system": system, "messages": [{"role": "user", "content": "one"}]})
        messages(llm, {"system": system, "messages": [{"role": "user", "content": "two"}]})
        plain = [{"type": "text", "text": "s" * 8000}]
        messages(llm, {"system": plain, "messages": [{"role": "user", "content": "three"}]})
        first, second, third = llm.usages
    assert first["cache_creation_input_tokens"] > 2000 and first["cache_read_input_tokens"] == 0
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert second["cache_creation_input_tokens"] == 0
    assert third["cache_read_input_tokens"] == 0  # no breakpoint, no cache


def test_ollama_refuses_what_the_real_server_refuses_and_records_options() -> None:
    with FakeOllama([Turn(text="hi")]) as llm:
        url = llm.base_url + "/api/chat"
        status, reply = post(url, {"model": "nope", "messages": []})
        assert (status, reply) == (404, {"error": 'model "nope" not found, try pulling it first'})
        status, reply = post(url, {"model": "qwen3:8b", "messages": [{"role": "user", "content": [{"type": "text"}]}]})
        assert status == 400 and "cannot unmarshal array" in reply["error"]
        call = {"function": {"name": "read", "arguments": "{}"}}
        status, reply = post(
            url, {"model": "qwen3:8b", "messages": [{"role": "assistant", "content": "", "tool_calls": [call]}]}
        )
        assert status == 400 and "function.arguments of type api.ToolCallFunctionArguments" in reply["error"]
        status, reply = post(
            url,
            {
                "model": "qwen3:8b",
                "stream": False,
                "options": {"num_ctx": 8192},
                "messages": [{"role": "user", "content": "x"}],
            },
        )
        assert status == 200 and reply["message"]["content"] == "hi" and reply["done"] is True
        assert llm.requests[-1]["options"] == {"num_ctx": 8192}
        status, reply = post(llm.base_url + "/api/show", {"model": "qwen3:8b"})
        assert reply["model_info"]["qwen3.context_length"] == 40960


def test_litellm_streams_tool_calls_from_both_stand_ins(monkeypatch) -> None:
    import asyncio

    from flue_tui.model.loader import get_litellm

    litellm = get_litellm()
    tools = [
        {
            "type": "function",
            "function": {"name": "read", "description": "r", "parameters": {"type": "object", "properties": {}}},
        }
    ]

    async def calls(model: str) -> list[Any]:
        stream = await litellm.acompletion(
            model=model,
            messages=[{"role": "user", "content": "go"}],
            tools=tools,
            stream=True,
            api_key="k",
            max_tokens=100,
        )
        return [
            tc
            for chunk in [c async for c in stream]
            if chunk.choices
            for tc in (chunk.choices[0].delta.tool_calls or [])
        ]

    with (
        FakeAnthropic([Turn(calls=[Call("read", {"path": "a"})])]) as anthropic,
        FakeOllama([Turn(calls=[Call("read", {"path": "a"})])]) as ollama,
    ):
        monkeypatch.setenv("ANTHROPIC_API_BASE", anthropic.base_url)
        monkeypatch.setenv("OLLAMA_API_BASE", ollama.base_url)
        for model in ("anthropic/claude-sonnet-4-5", "ollama_chat/qwen3:8b"):
            got = asyncio.run(calls(model))
            assert got[0].function.name == "read"
            assert json.loads("".join(tc.function.arguments or "" for tc in got)) == {"path": "a"}
