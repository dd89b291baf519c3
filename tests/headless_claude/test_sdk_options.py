"""The SDK's options as a real script sets them, through the real Agent SDK: each reaches flue as
the flag the SDK passes, and is acted on (disallowed_tools, setting_sources, thinking) or accepted
with one line (betas, plugins), never a usage error."""

from __future__ import annotations

import pytest

from tests.fakellm import Turn

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
