"""Inline mode: the turn line, the status line and /cost read the same total, task child
included; /effort switches thinking for the next turn. One process, as a person would use it."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn
from tests.test_totals import PARENT_AND_CHILD

FIRST_REPLY_S = 120.0


def test_turn_line_status_line_and_cost_agree_then_effort_switches(inline, fakellm, work: Path):
    (work / "notes.txt").write_text("hi\n")
    fakellm.script([*PARENT_AND_CHILD, Turn(text="thought about it", usage=(5, 5))])
    term = inline("--permission-mode", "yolo", cols=140)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("parent job\r")
    term.wait_for("The child says hi.", timeout=FIRST_REPLY_S)
    # The turn line carries the total (waited for: the terminal's reads may split the line).
    term.wait(
        lambda t: any("2 turns ·" in ln and "900 in · 180 out" in ln for ln in t.splitlines()), what="the turn line"
    )
    term.wait(lambda t: "900 in · 180 out" in term.screen_text(), what="the status line total")
    term.send("/cost\r")
    term.wait_for("Tokens: 900 in · 180 out")
    term.send("/effort high\r")
    term.wait_for("Thinking effort: high.")
    term.send("/effort extreme\r")
    term.wait_for("Unknown effort 'extreme': use one of off, low, medium, high.")
    term.send("think now\r")
    term.wait_for("thought about it")
    assert fakellm.requests[-1].get("reasoning_effort") == "high"
