"""The composed system prompt, exactly, as the scripted server receives it."""

from __future__ import annotations

from pathlib import Path

from flue_tui.agent.prompt import AGENTS_INTRO, NO_AGENTS, PREAMBLE, SKILLS_INTRO, compose_system_prompt, flue_date
from flue_tui.context.agents_md import discover_workspace
from tests.context.conftest import write_skill
from tests.fakellm import Turn

PACKAGED = [
    "- **commit** — Write a Conventional Commits message for the current changes and commit them, after "
    "checking that nothing unintended is included.",
    "- **fix-tests** — Run the project's test suite, find the cause of each failure, and fix the code (or the "
    "test, when the test is wrong) until the suite passes.",
    "- **init** — Write or refresh an AGENTS.md for the current repository, so coding agents learn how to "
    "build, test and change it.",
    "- **review** — Review the uncommitted changes in this repository (staged and unstaged) for bugs, risks and "
    "missing tests, and report findings by severity.",
]
GENERAL = (
    "- **flue-general** — General-purpose agent for independent research, file exploration, and "
    "parallel work. Runs with a fresh context and the workspace tools; give it complete instructions "
    "in the prompt."
)


def skills_block(*lines: str) -> str:
    return "## Available Skills\n\n" + SKILLS_INTRO + "\n\n" + "\n".join(lines)


def agents_block(*lines: str) -> str:
    return "## Available Agents\n\n" + AGENTS_INTRO + "\n\n" + "\n".join(lines)


def tail(cwd: Path, *listing: str) -> str:
    out = f"Date: {flue_date()}\nWorking directory: {cwd}"
    return out + ("\n\nDirectory structure:\n" + "\n".join(listing) if listing else "")


async def sent_system_prompt(fakellm, runtime) -> str:
    fakellm.script([Turn(text="ok")])
    session, _ = runtime.new_session()
    await session.prompt("hi")
    first = fakellm.requests[-1]["messages"][0]
    assert first["role"] == "system"
    return first["content"]


async def test_no_context_files(fakellm, runtime_for, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "b.txt").write_text("")
    (tmp_path / ".hidden").write_text("")
    prompt = await sent_system_prompt(fakellm, runtime_for(tmp_path))
    assert prompt == "\n\n".join(
        [PREAMBLE, skills_block(*PACKAGED), agents_block(GENERAL), tail(tmp_path, ".hidden", "b.txt", "src")]
    )


async def test_agents_md_only(fakellm, runtime_for, tmp_path):
    (tmp_path / "AGENTS.md").write_text("\n  # Project rules\nUse uv.\n\n")
    prompt = await sent_system_prompt(fakellm, runtime_for(tmp_path))
    assert prompt == "\n\n".join(
        [
            PREAMBLE,
            "# Project rules\nUse uv.",
            skills_block(*PACKAGED),
            agents_block(GENERAL),
            tail(tmp_path, "AGENTS.md"),
        ]
    )


async def test_both_files_agents_first_and_custom_instructions(fakellm, runtime_for, tmp_path):
    (tmp_path / "CLAUDE.md").write_text("Claude rules.\n")
    (tmp_path / "AGENTS.md").write_text("Agent rules.\n")
    instructions = tmp_path / "sys.txt"
    instructions.write_text("You are a test agent.\n")
    runtime = runtime_for(tmp_path, system_prompt_file=str(instructions), append_system_prompt="Be terse.")
    prompt = await sent_system_prompt(fakellm, runtime)
    assert prompt == "\n\n".join(
        [
            "You are a test agent.\n\nBe terse.",
            "Agent rules.\n\nClaude rules.",
            skills_block(*PACKAGED),
            agents_block(GENERAL),
            tail(tmp_path, "AGENTS.md", "CLAUDE.md", "sys.txt"),
        ]
    )


async def test_workspace_skills_listed_first_without_their_body(fakellm, runtime_for, tmp_path):
    write_skill(tmp_path, "zeta", "name: zeta\ndescription: Last one", body="SECRET BODY Z")
    write_skill(tmp_path, "alpha", "name: alpha\ndescription: '  First one  '", body="SECRET BODY A")
    prompt = await sent_system_prompt(fakellm, runtime_for(tmp_path))
    assert prompt == "\n\n".join(
        [
            PREAMBLE,
            skills_block("- **alpha** — First one", "- **zeta** — Last one", *PACKAGED),
            agents_block(GENERAL),
            tail(tmp_path, ".agents"),
        ]
    )
    assert "SECRET BODY" not in prompt


async def test_user_subagents_are_listed(fakellm, runtime_for, tmp_path):
    agents = tmp_path / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "tester.md").write_text(
        "---\nname: tester\ndescription: Runs the tests\nmodel: openai/other\n---\nYou run tests.\n"
    )
    (agents / "broken.md").write_text("no frontmatter here")
    runtime = runtime_for(tmp_path)
    prompt = await sent_system_prompt(fakellm, runtime)
    assert prompt == "\n\n".join(
        [
            PREAMBLE,
            skills_block(*PACKAGED),
            agents_block(GENERAL, "- **tester** — Runs the tests"),
            tail(tmp_path, ".agents"),
        ]
    )
    _, context = runtime.new_session()
    assert context.warnings == [
        f'[flue] Skipping invalid agent "broken.md": [flue] Skill {agents / "broken.md"} is missing YAML '
        'frontmatter. Start SKILL.md with "---", include "name" and "description", then close the block '
        'with "---".'
    ]


def test_no_agents_and_no_workspace_match_flue_layout(tmp_path):
    workspace = discover_workspace(str(tmp_path))
    assert compose_system_prompt("", workspace, [], []) == (
        f"## Available Agents\n\n{NO_AGENTS}\n\nDate: {flue_date()}\nWorking directory: {tmp_path}"
    )
    assert (
        compose_system_prompt("Hi.", None, [], [])
        == f"Hi.\n\n## Available Agents\n\n{NO_AGENTS}\n\nDate: {flue_date()}"
    )


def test_date_format_has_no_zero_padding():
    import datetime

    assert flue_date(datetime.date(2026, 8, 4)) == "Tue, Aug 4, 2026"
    assert flue_date(datetime.date(2026, 11, 29)) == "Sun, Nov 29, 2026"
