"""The words of issue 17's commands, on real values: unknown commands, /context's split of the
system prompt, /cost's extra lines and /permissions' origins (config files read from tmp dirs)."""

from __future__ import annotations

from pathlib import Path

from flue_tui.config.settings import Settings
from flue_tui.core.messages import Usage
from flue_tui.permissions.config import build_policy
from flue_tui.runtime.costs import cost_text
from flue_tui.ui.commands import parse, unknown_text
from flue_tui.ui.permissions_text import describe
from flue_tui.ui.status_text import prompt_parts


def test_unknown_commands_get_the_closest_name_or_the_help_hint():
    assert unknown_text("moddel", []) == "Unknown command /moddel — did you mean /model?"
    assert unknown_text("stauts", []) == "Unknown command /stauts — did you mean /status?"
    assert unknown_text("reviw", ["review"]) == "Unknown command /reviw — did you mean /review?"
    assert unknown_text("xyz", []) == "Unknown command /xyz. /help lists the commands."
    # parse's rules are kept: these are prompts, not commands
    assert parse("//moddel") is None and parse("/usr/bin/env python") is None
    assert parse("/moddel x") == ("moddel", "x")


def test_context_splits_the_system_prompt_into_instructions_agents_md_and_skills():
    agents = "Run make check before committing."
    skills = "## Available Skills\n\nUse them.\n\n- **init** — write AGENTS.md"
    prompt = f"You are flue.\n\n{agents}\n\n{skills}\n\n## Available Agents\n\nNone.\n\nDate: today"
    parts = dict(prompt_parts(prompt, agents))
    assert parts["AGENTS.md / CLAUDE.md"] == -(-len(agents) // 4)
    assert parts["Skills list"] == -(-len(skills) // 4)
    assert parts["System prompt"] == -(-(len(prompt) - len(agents) - len(skills)) // 4)
    # AGENTS.md that is not in the prompt (changed on disk since) is not counted as in it
    assert dict(prompt_parts(prompt, "something else"))["AGENTS.md / CLAUDE.md"] == 0


def test_cost_lines():
    total = Usage(input=100, output=20, cache_read=700, cache_write=100, cost=0.02)
    text = cost_text(total, True, 0, None, children=Usage(input=50, output=5, cost=0.001), cache_usd=0.005)
    assert text.splitlines() == [
        "Tokens: 900 in (700 cache read, 100 cache write) · 20 out · cost $0.0200 · task sub-agents included",
        "  cache: 700 tokens read, 100 written · $0.0050 (25% of the cost)",
        "  task sub-agents: 50 in · 5 out · $0.0010",
    ]
    unpriced = Usage(input=5, output=1, priced=False)
    text = cost_text(unpriced, False, 0, None, children=Usage(), unpriced=("openai/fake",), cache_usd=None)
    assert text.splitlines()[1].startswith("  cost unknown for openai/fake: no price is known")
    assert "task sub-agents" not in text and "$" not in text


def test_permissions_name_each_rules_origin(tmp_path: Path, _isolated_home: Path):
    work = tmp_path / "w"
    (work / ".flue").mkdir(parents=True)
    (_isolated_home / "config.toml").write_text('[permissions]\nallow = ["bash(npm test)"]\ndeny = ["read(.env)"]\n')
    # An untrusted project: its deny applies, its allow is held back; its texts may carry escapes.
    (work / ".flue" / "config.toml").write_text(
        '[permissions]\ndeny = ["bash(rm *)", "bash(\\u001b]0;pwned\\u0007x)"]\nallow = ["bash(curl *)"]\n'
    )
    settings = Settings.from_env(model="openai/fake", cwd=str(work), allowed_tools=["grep"], interactive=True)
    policy = build_policy(settings)
    policy.allow_for_session(["bash(git status)"])
    text = describe(policy, settings)
    home = _isolated_home / "config.toml"
    project = work / ".flue" / "config.toml"
    assert text.startswith("Permission mode: ask")
    assert f"read(.env)  — user config {home}" in text
    assert f"bash(rm *)  — project config {project}" in text
    assert f"bash(npm test)  — user config {home}" in text
    assert "grep  — command line" in text
    assert "Allowed for this session" in text and "  bash(git status)" in text
    assert "Held back until you trust this project:" in text and "bash(curl *)" in text
    assert "\x1b" not in text and "\x07" not in text  # shown, never obeyed


def test_an_unknown_name_is_echoed_short_and_inert():
    text = unknown_text("\x1b]52;c;cHduZWQ=\x07" + "z" * 80, [])
    assert "\x1b" not in text and "\x07" not in text and len(text) < 100


def test_every_listed_command_has_a_handler_and_every_handler_a_listed_name() -> None:
    """The command table (ui/commands.py): /help's rows and what dispatch runs are one set."""
    from flue_tui.ui.commands import COMMANDS
    from flue_tui.ui.dispatch import HANDLERS

    listed = {c.name for c in COMMANDS}
    assert listed <= set(HANDLERS)
    aliases = {"!", "exit", "clear", "context", "permissions", "undo", "redo"} - listed
    assert set(HANDLERS) - listed <= aliases
