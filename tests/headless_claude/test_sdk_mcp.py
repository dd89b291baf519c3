"""In-process SDK MCP servers (`create_sdk_mcp_server`) through the real Agent SDK: flue's MCP
client reaches the script's server by `mcp_message` control requests, its tools are offered as
`mcp__<server>__<tool>`, and a call's result reaches the model."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakellm import Call, Turn

pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import ClaudeSDKClient, create_sdk_mcp_server, tool

from tests.headless_claude.sdkrun import needs_flue, options, run

pytestmark = needs_flue


def test_an_sdk_mcp_server_tool_is_offered_and_called(fakellm, flue_env, tmp_path):
    calls: list[dict[str, Any]] = []

    @tool("add", "Add two numbers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    server = create_sdk_mcp_server("calc", "1.0.0", tools=[add])
    fakellm.script([Turn(calls=[Call("mcp__calc__add", {"a": 2, "b": 3}, id="m1")]), Turn(text="five")])
    stderr: list[str] = []
    opts = options(
        flue_env,
        tmp_path,
        permission_mode="bypassPermissions",
        mcp_servers={"calc": server},
        stderr=stderr.append,
    )

    async def scenario() -> list[Any]:
        got: list[Any] = []
        async with ClaudeSDKClient(options=opts) as client:
            await client.query("add 2 and 3")
            got += [m async for m in client.receive_response()]
        return got

    messages = run(scenario())
    assert messages[-1].result == "five", stderr
    offered = {t["function"]["name"] for t in fakellm.requests[0].get("tools") or []}
    assert "mcp__calc__add" in offered
    assert calls == [{"a": 2, "b": 3}]
    tool_texts = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert tool_texts["m1"] == "5"
