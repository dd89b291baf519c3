"""Helpers for driving a real Session (real litellm client) against the scripted server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from flue_tui.agent.session import Session
from flue_tui.core.abort import ToolError
from flue_tui.core.traits import ToolTraits
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema


class EchoAfter:
    """A real tool for exercising the machinery: waits `seconds`, then returns `text`."""

    name = "echo_after"
    label = "Echo After"
    description = "Wait, then echo."
    traits = ToolTraits()
    parameters = schema(
        {"text": prop("string", "Text to echo"), "seconds": prop("number", "Seconds to wait")}, ["text"]
    )

    def __init__(self) -> None:
        self.started: list[str] = []
        self.active = 0
        self.max_active = 0

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        self.started.append(args["text"])
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            await asyncio.sleep(args.get("seconds", 0))
        finally:
            self.active -= 1
        if args["text"] == "boom":
            raise ToolError("it went boom")
        if args["text"] == "crash":
            raise RuntimeError("unexpected crash")
        return ToolResult(text=f"echo: {args['text']}", details={"seconds": args.get("seconds", 0)})


@pytest.fixture
def make_session(fakellm):
    def make(tools: list[Any], **kw: Any) -> Session:
        client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
        return Session(model=client, tools=tools, system_prompt="You are a test.", retry_base_ms=5, **kw)

    return make


@pytest.fixture
def record():
    """Subscribe to a session's events; returns (subscribe_fn, list)."""
    events: list[Any] = []

    def attach(session: Session) -> list[Any]:
        session.subscribe(events.append)
        return events

    return attach
