"""The SDK's options as a real script sets them, through the real Agent SDK: each reaches flue as
the flag the SDK passes, and is acted on (disallowed_tools, setting_sources, thinking) or accepted
with one line (betas, plugins), never a usage error."""

from __future__ import annotations

import pytest

from tests.fakellm import Call, Turn

pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import query

from tests.headless_claude.sdkrun import collect, needs_flue, options, run

pytestmark = needs_flue


def _offered(request: dict) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def test_disallowed_tools_are_not_offered_to_the_model(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(text="ok")])
    opts = options(flue_env, tmp_path, permission_mode="bypassPermissions", disallowed_tools=["Bash", "Write"])
    messages = run(collect(query(prompt="hi", options=opts)))
    assert messages[-1].result == "ok"
    offered = _offered(fakellm.requests[0])
    assert "read" in offered and not offered & {"bash", "write", "bash_background"}
    assert "bash" not in messages[0].data["tools"]


def test_setting_sources_empty_loads_no_project_memory(fakellm, flue_env, tmp_path):
    (tmp_path / "CLAUDE.md").write_text("CLAUDE-MEMORY-MARKER\n")
    (tmp_path / "AGENTS.md").write_text("AGENTS-MEMORY-MARKER\n")
    fakellm.script([Turn(text="bare"), Turn(text="with memory")])
    run(collect(query(prompt="hi", options=options(flue_env, tmp_path, setting_sources=[]))))
    run(collect(query(prompt="hi", options=options(flue_env, tmp_path, setting_sources=["project"]))))
    bare, full = (str(r["messages"][0]["content"]) for r in fakellm.requests)
    assert "MEMORY-MARKER" not in bare and "CLAUDE.md" in bare  # the listing stays, as in Flue
    assert "CLAUDE-MEMORY-MARKER" in full and "AGENTS-MEMORY-MARKER" in full


@pytest.mark.parametrize(
    ("kw", "said"),
    [
        ({"thinking": {"type": "adaptive"}}, []),
        ({"thinking": {"type": "disabled"}, "max_thinking_tokens": 0}, []),
        ({"thinking": {"type": "enabled", "budget_tokens": 2048, "display": "summarized"}}, []),
        ({"betas": ["context-1m-2025-08-07"]}, ["--betas context-1m-2025-08-07 is ignored"]),
        ({"plugins": [{"type": "local", "path": "/nowhere/plugin"}]}, ["--plugin-dir /nowhere/plugin is ignored"]),
    ],
)
def test_thinking_betas_and_plugins_are_accepted(fakellm, flue_env, tmp_path, kw, said):
    fakellm.script([Turn(text="fine")])
    stderr: list[str] = []
    opts = options(flue_env, tmp_path, permission_mode="bypassPermissions", stderr=stderr.append, **kw)
    messages = run(collect(query(prompt="hi", options=opts)))
    assert messages[-1].result == "fine", stderr
    assert len(stderr) == len(said) and all(s in line for s, line in zip(said, stderr, strict=True)), stderr


def test_thinking_disabled_turns_the_effort_off(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(text="one"), Turn(text="two")])
    run(collect(query(prompt="hi", options=options(flue_env, tmp_path, model="openai/o3-mini", effort="high"))))
    opts = options(flue_env, tmp_path, model="openai/o3-mini", thinking={"type": "disabled"})
    run(collect(query(prompt="hi", options=opts)))
    assert fakellm.requests[0].get("reasoning_effort") == "high"
    assert "reasoning_effort" not in fakellm.requests[1]


def test_agents_defined_in_the_sdk_are_task_agents(fakellm, flue_env, tmp_path):
    from claude_agent_sdk import AgentDefinition, ClaudeSDKClient

    def child(body: dict) -> bool:
        return "You review code, tersely." in str(body["messages"][0]["content"])

    fakellm.script(
        [
            Turn(text="reviewed: fine", match=child),
            Turn(calls=[Call("task", {"agent": "reviewer", "prompt": "review it"})], match=lambda b: not child(b)),
            Turn(text="done", match=lambda b: not child(b)),
        ]
    )
    agents = {
        "reviewer": AgentDefinition(description="Reviews code", prompt="You review code, tersely.", tools=["Read"]),
        "quick": AgentDefinition(description="Quick looks", prompt="Be quick.", model="haiku"),
    }
    stderr: list[str] = []
    opts = options(flue_env, tmp_path, permission_mode="bypassPermissions", agents=agents, stderr=stderr.append)

    async def scenario() -> list:
        got: list = []
        async with ClaudeSDKClient(options=opts) as client:
            await client.query("get it reviewed")
            got += [m async for m in client.receive_response()]
        return got

    messages = run(scenario())
    assert {"reviewer", "quick"} <= set(messages[0].data["agents"])
    assert messages[-1].result == "done"
    parent_prompt = str(fakellm.requests[0]["messages"][0]["content"])
    assert "reviewer" in parent_prompt and "Reviews code" in parent_prompt
    child_request = next(r for r in fakellm.requests if child(r))
    assert _offered(child_request) <= {"read", "finish", "give_up"}  # tools=["Read"]: the child gets only that
    assert [line for line in stderr if '"quick"' in line] == [
        'flue: The agent "quick" asks for Claude Code\'s "haiku"; it runs on its caller\'s model.'
    ]
