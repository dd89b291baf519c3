"""The policy wired by Runtime into a real Session (real litellm client, scripted server): sub-agents
answer to it too, and a refusal reaches the model as the tool's error result."""

from __future__ import annotations

import asyncio

from flue_tui.config.settings import Settings
from flue_tui.permissions.policy import no_ask_text, policy_of
from flue_tui.runtime.wiring import Runtime
from tests.fakellm import Call, Turn


async def test_a_sub_agent_never_waits_and_its_refusals_are_listed(fakellm, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = Settings(
        model="openai/fake", api_base=fakellm.base_url, cwd=str(tmp_path), permission_mode="ask", retry_base_ms=5
    )
    session, _ = Runtime(settings).new_session()
    policy = policy_of(session)
    assert policy is not None and policy.mode == "ask" and policy.asker is None
    fakellm.script(
        [
            Turn(
                calls=[Call("task", {"prompt": "create the file", "agent": "flue-general"}, id="parent_1")],
                match=lambda body: len(body["messages"]) <= 2 and "create the file" not in str(body["messages"]),
            ),
            Turn(calls=[Call("bash", {"command": "touch made"}, id="child_1")], match="create the file"),
            Turn(text="I was not allowed to run it.", match="create the file"),
            Turn(text="The sub-agent could not create it."),
        ]
    )
    result = await asyncio.wait_for(session.prompt("go"), 60)
    assert result.text == "The sub-agent could not create it."
    assert not (tmp_path / "made").exists()
    child_second = [r for r in fakellm.requests if "create the file" in str(r["messages"][1:2])][1]
    assert child_second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "child_1",
        "content": no_ask_text("bash", "ask", ["bash(touch *)"]),
    }
    assert [d.to_dict() for d in policy.denials] == [
        {"tool_name": "bash", "tool_use_id": "child_1", "tool_input": {"command": "touch made"}}
    ]
