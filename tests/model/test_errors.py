"""Provider errors read as one sentence with the status code, and never echo the request."""

from __future__ import annotations

import asyncio

from flue_tui.agent.session import Session
from flue_tui.model.errors import readable
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.model.loader import get_litellm
from tests.fakellm import Turn
from tests.model.conftest import SONNET


def test_anthropic_error_body_becomes_a_sentence(claude_session, anthropic_env):
    anthropic_env.script(Turn(status=400, error_message="messages.3: `tool_use` ids were found without results"))
    result = asyncio.run(claude_session().prompt("hi"))
    assert result.error == (
        "prompt failed: Anthropic returned 400 (invalid_request_error): "
        "messages.3: `tool_use` ids were found without results"
    )


def test_a_hostile_error_body_cannot_drive_the_terminal(claude_session, anthropic_env):
    anthropic_env.script(Turn(status=400, error_message="bad\x1b[2J\x1b]0;pwned\x07\nsecond line\r" + "x" * 5000))
    result = asyncio.run(claude_session().prompt("hi"))
    assert "\x1b" not in result.error and "\n" not in result.error and "\r" not in result.error
    assert result.error.startswith("prompt failed: Anthropic returned 400 (invalid_request_error): bad")
    assert len(result.error) < 700


def test_a_refusal_made_by_litellm_never_includes_the_messages(anthropic_env):
    litellm = get_litellm()
    messages = [
        {"role": "system", "content": "SECRET SYSTEM PROMPT"},
        {"role": "user", "content": "SECRET USER"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "toolu_1", "type": "function", "function": {"name": "lookup", "arguments": '{"word": "a'}}
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "res"},
        {"role": "user", "content": "next"},
    ]

    async def fail() -> BaseException:
        try:
            stream = await litellm.acompletion(model=SONNET, messages=messages, stream=True, max_tokens=100)
            async for _ in stream:
                pass
        except Exception as exc:  # noqa: BLE001 - the exception is what we examine
            return exc
        raise AssertionError("litellm accepted unparseable arguments")

    raw = asyncio.run(fail())
    assert "SECRET SYSTEM PROMPT" in str(raw)  # what litellm itself says
    error = LiteLLMClient(SONNET)._map_error(raw)
    assert "SECRET" not in error.message and "Received Messages" not in error.message
    assert error.message.startswith("litellm refused to send the request: Failed to parse tool call arguments")
    assert anthropic_env.requests == []


def test_an_unreachable_openai_compatible_server_has_no_litellm_prefixes():
    client = LiteLLMClient("openai/x", api_base="http://127.0.0.1:9/v1", api_key="sk-x")
    result = asyncio.run(Session(model=client, tools=[], system_prompt="s", retry_base_ms=1).prompt("hi"))
    assert result.is_error
    for noise in ("litellm.", "APIConnectionError", "Exception -", "b'"):
        assert noise not in result.error


def test_readable_handles_each_provider_body():
    anthropic = (
        'litellm.BadRequestError: AnthropicException - b\'{"type":"error","error":{"type":'
        '"invalid_request_error","message":"max_tokens: Field required"}}\''
    )
    assert (
        readable(anthropic, provider="anthropic", status=400)
        == "Anthropic returned 400 (invalid_request_error): max_tokens: Field required"
    )
    ollama = (
        'litellm.APIConnectionError: Ollama_chatException - {"error":"model \\"x\\" not found, try pulling it first"}'
    )
    assert (
        readable(ollama, provider="ollama_chat", status=404)
        == 'Ollama returned 404: model "x" not found, try pulling it first'
    )
    gemini = (
        'litellm.RateLimitError: VertexAIException - {"error": {"code": 429, "message": "Resource has been '
        'exhausted", "status": "RESOURCE_EXHAUSTED"}}'
    )
    assert (
        readable(gemini, provider="gemini", status=429)
        == "Gemini returned 429 (RESOURCE_EXHAUSTED): Resource has been exhausted"
    )
    assert len(readable("x" * 5000, provider="openai", status=500)) < 700
