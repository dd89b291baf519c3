"""Sessions on the real litellm client against the strict Anthropic and Ollama stand-ins."""

from __future__ import annotations

from typing import Any

import pytest

from flue_tui.agent.session import Session
from flue_tui.core.traits import ToolTraits
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema

SONNET = "anthropic/claude-sonnet-4-5"


class Lookup:
    """A real tool with a long, stable description so the prefix is worth caching."""

    name = "lookup"
    label = "Lookup"
    description = "Look a word up. " + "Explains the word at length. " * 300
    traits = ToolTraits()
    parameters = schema({"word": prop("string", "The word")}, ["word"])

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(text=f"{args['word']}: " + "a definition. " * 200)


@pytest.fixture
def anthropic_env(fakeanthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_BASE", fakeanthropic.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return fakeanthropic


@pytest.fixture
def claude_session(anthropic_env):
    def make(model: str = SONNET, **client_kw: Any) -> Session:
        client = LiteLLMClient(model, **client_kw)
        return Session(model=client, tools=[Lookup()], system_prompt="You are a test. " * 50, retry_base_ms=5)

    return make


@pytest.fixture(params=["in process", "relay"])
def either_side(request):
    """Each direct-path test twice: with the HTTP client in this process, and in the relay's
    (model/relay.py), which must read every provider, sound or hostile, the same way."""
    from flue_tui.model import relay

    if request.param == "relay":
        relay.start("http://127.0.0.1/")
        assert relay.current() is not None
    yield request.param
    relay.stop()
