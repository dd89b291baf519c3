"""Thinking: `--effort` reaches the provider's reasoning control through litellm, and thinking blocks
(signatures and redacted blocks included) go back exactly as Anthropic requires, across tool turns
and across a resume. Real CLI, real litellm, the strict Anthropic stand-in."""

from __future__ import annotations

import json
from pathlib import Path

from flue_tui.store.sessions import SessionStore
from tests.fakellm import Call, FakeAnthropic, Turn
from tests.fakellm.anthropic import redacted_data
from tests.fakellm.anthropic_rules import sign

MODEL = ("--model", "anthropic/claude-sonnet-4-5")


def anthropic_env(flue_env: dict[str, str], llm: FakeAnthropic) -> dict[str, str]:
    env = {k: v for k, v in flue_env.items() if not k.startswith("OPENAI_")}
    env.update({"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_API_BASE": llm.base_url})
    return env


def thinking_blocks(request: dict) -> list[list[dict]]:
    """Per assistant message of a request: its thinking / redacted_thinking blocks."""
    return [
        [b for b in m["content"] if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")]
        for m in request["messages"]
        if m["role"] == "assistant" and isinstance(m["content"], list)
    ]


def test_effort_high_runs_a_tool_task_and_resumes_with_thinking(
    fakeanthropic, flue_main, flue_env, tmp_path, _isolated_home
):
    (tmp_path / "a.txt").write_text("alpha\n")
    fakeanthropic.script(
        [
            Turn(
                match="inspect",
                reasoning="First I read a.txt to see what it says.",
                calls=[Call("read", {"path": "a.txt"})],
            ),
            Turn(
                match="inspect",
                reasoning="Now count with bash.",
                redacted_thinking="hidden reasoning",
                calls=[Call("bash", {"command": "wc -l < a.txt"})],
            ),
            Turn(match="inspect", reasoning="Both done; answer.", text="a.txt has one line: alpha."),
            Turn(match="inspect", reasoning="Read it again after the resume.", calls=[Call("read", {"path": "a.txt"})]),
            Turn(match="inspect", reasoning="Still alpha.", text="Still alpha."),
        ]
    )
    env = anthropic_env(flue_env, fakeanthropic)
    out = flue_main("-p", "inspect a.txt", *MODEL, "--effort", "high", "--output-format", "json", env=env)
    assert out.code == 0, out.stderr + str(fakeanthropic.rejections)
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["result"] == "a.txt has one line: alpha." and not fakeanthropic.rejections
    first, second, third = fakeanthropic.requests[:3]
    # litellm maps effort=high to Anthropic's thinking budget; max_tokens stays above it.
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert first["max_tokens"] > 4096
    reasoning = "First I read a.txt to see what it says."
    assert thinking_blocks(second) == [[{"type": "thinking", "thinking": reasoning, "signature": sign(reasoning)}]]
    assert thinking_blocks(third)[1] == [
        {"type": "thinking", "thinking": "Now count with bash.", "signature": sign("Now count with bash.")},
        {"type": "redacted_thinking", "data": redacted_data("hidden reasoning")},
    ]

    with SessionStore.open(_isolated_home / "sessions.db") as store:
        stored = [m for m in store.load_context(result["session_id"]) if getattr(m, "role", "") == "assistant"]
    assert stored[0].thinking_blocks[0]["signature"] == sign(reasoning)

    again = flue_main(
        "-p",
        "inspect it once more",
        "--resume",
        result["session_id"],
        *MODEL,
        "--effort",
        "high",
        "--output-format",
        "json",
        env=env,
    )
    assert again.code == 0, again.stderr + str(fakeanthropic.rejections)
    assert json.loads(again.stdout.splitlines()[-1])["result"] == "Still alpha."
    assert not fakeanthropic.rejections
    resumed = fakeanthropic.requests[-1]
    # Every earlier block is sent back as it arrived, signatures intact.
    assert thinking_blocks(resumed)[:3] == [
        thinking_blocks(third)[0],
        thinking_blocks(third)[1],
        [{"type": "thinking", "thinking": "Both done; answer.", "signature": sign("Both done; answer.")}],
    ]


def test_effort_off_sends_no_thinking_and_bad_effort_is_one_sentence(fakeanthropic, flue_main, flue_env):
    fakeanthropic.script([Turn(text="plain")])
    env = anthropic_env(flue_env, fakeanthropic)
    out = flue_main("-p", "hi", *MODEL, "--effort", "off", env=env)
    assert out.code == 0, out.stderr
    assert "thinking" not in fakeanthropic.requests[0]
    bad = flue_main("-p", "hi", *MODEL, "--effort", "extreme", env=env)
    assert bad.code == 2 and "Unknown effort 'extreme': use one of off, low, medium, high." in bad.stderr
    assert "Traceback" not in bad.stderr


def test_config_model_table_sets_effort_and_output_limit(
    fakeanthropic, flue_main, flue_env, tmp_path: Path, _isolated_home
):
    (_isolated_home / "config.toml").write_text(
        '[model]\nname = "anthropic/claude-sonnet-4-5"\neffort = "low"\nmax_output_tokens = 3000\n'
    )
    fakeanthropic.script([Turn(reasoning="brief", text="ok")])
    out = flue_main("-p", "hi", env=anthropic_env(flue_env, fakeanthropic))
    assert out.code == 0, out.stderr + str(fakeanthropic.rejections)
    request = fakeanthropic.requests[0]
    assert request["model"] == "claude-sonnet-4-5"
    assert request["thinking"] == {"type": "enabled", "budget_tokens": 1024} and request["max_tokens"] == 3000
    (_isolated_home / "config.toml").write_text('[model]\nname = "anthropic/claude-sonnet-4-5"\neffort = "max"\n')
    bad = flue_main("-p", "hi", env=anthropic_env(flue_env, fakeanthropic))
    assert bad.code == 2 and "model.effort must be" in bad.stderr, bad.stderr


def test_model_table_keys_layer_like_the_top_level_ones(tmp_path: Path, _isolated_home):
    from flue_tui.config.settings import Settings

    (_isolated_home / "config.toml").write_text(
        '[model]\nname = "openai/gpt-4.1"\neffort = "medium"\n'
        "max_output_tokens = 5000\nprompt_cache = false\ninput_price = 3\n"
    )
    settings = Settings.from_env(cwd=str(tmp_path))
    assert (settings.model, settings.effort, settings.max_output_tokens) == ("openai/gpt-4.1", "medium", 5000)
    assert settings.prompt_cache is False and settings.input_price == 3.0
    assert Settings.from_env(cwd=str(tmp_path), effort="off").effort == "off"  # the flag wins


async def test_other_providers_get_no_thinking_blocks_and_effort_only_where_it_means_something(fakellm, capfd):
    """After /model switches a Claude session to OpenAI, the stored thinking blocks stay out of the
    request (an OpenAI-style API refuses unknown message fields); effort goes to a reasoning model,
    not to one without reasoning (where litellm would drop it with a warning printed over the app)."""
    from flue_tui.model.litellm_client import LiteLLMClient

    fakellm.script([Turn(text="plain", repeat=2)])
    wire = [
        {"role": "user", "content": "a"},
        {
            "role": "assistant",
            "content": "b",
            "thinking_blocks": [{"type": "thinking", "thinking": "t", "signature": sign("t")}],
        },
        {"role": "user", "content": "c"},
    ]
    for model in ("openai/gpt-4.1", "openai/o3"):
        client = LiteLLMClient(model, api_base=fakellm.base_url, api_key="sk-test", effort="high")
        async for _ in client.stream_turn(wire, []):
            pass
    plain, reasoning = fakellm.requests
    assert all("thinking_blocks" not in m for r in (plain, reasoning) for m in r["messages"])
    assert "reasoning_effort" not in plain and reasoning["reasoning_effort"] == "high"
    assert "Dropping reasoning_effort" not in capfd.readouterr().err


def test_effort_and_output_limit_also_at_the_top_level_and_in_the_environment(
    tmp_path: Path, _isolated_home, monkeypatch
):
    from flue_tui.config.errors import ConfigError
    from flue_tui.config.settings import Settings

    (_isolated_home / "config.toml").write_text('effort = "high"\nmax_output_tokens = 7000\n')
    settings = Settings.from_env(cwd=str(tmp_path))
    assert (settings.effort, settings.max_output_tokens) == ("high", 7000)
    monkeypatch.setenv("FLUE_EFFORT", "low")
    assert Settings.from_env(cwd=str(tmp_path)).effort == "low"
    monkeypatch.setenv("FLUE_EFFORT", "turbo")
    try:
        Settings.from_env(cwd=str(tmp_path))
    except ConfigError as exc:
        assert str(exc) == 'FLUE_EFFORT: effort must be "off", "low", "medium" or "high", not a string (\'turbo\')'
    else:
        raise AssertionError("FLUE_EFFORT=turbo was accepted")
