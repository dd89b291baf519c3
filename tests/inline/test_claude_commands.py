"""Inline mode runs Claude Code's `.claude/commands` in a pty: `/skills` lists them, `/name args`
sends the expansion, shown as typed. The folder is tests/context/claude_folder (copied from
anthropics/claude-code @ 5889ae69 and 1215-Labs/claude-code-templates @ 6a28e042; its README
names each file)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.fakellm import Turn

FOLDER = Path(__file__).parent.parent / "context" / "claude_folder" / ".claude"


def test_a_command_runs_from_the_inline_prompt(inline, fakellm, work: Path):
    shutil.copytree(FOLDER, work / ".claude")
    fakellm.script([Turn(text="Root cause: a typo.")])
    term = inline("--trust-project", cols=120)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("/skills\r")
    term.wait_for("/workflow:rca")
    term.send("/workflow:rca `id` $HOME breaks\r")
    term.wait_for("Root cause: a typo.", timeout=120)
    sent = fakellm.requests[-1]["messages"][-1]["content"]
    assert "**Issue to investigate**: `id` $HOME breaks\n" in sent
    assert "/workflow:rca `id` $HOME breaks" in term.text()
    term.send("/quit\r")
    assert term.exit_code() == 0
