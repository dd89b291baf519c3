"""Inline slash commands run through the one dispatcher (ui/commands.py) the app uses, so they say
what the app says: `/model` without an id opens the model picker, `/mode`
switches and keeps the mode, and an unknown `/word` is still sent as a prompt."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn

FIRST_REPLY_S = 120.0


def test_model_lists_mode_switches_and_unknown_commands_are_prompts(inline, fakellm, work: Path):
    fakellm.script([Turn(match="/frobnicate", text="A prompt after all.")])
    term = inline("--permission-mode", "ask", cols=140)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("/frobnicate now\r")
    term.wait_for("A prompt after all.", timeout=FIRST_REPLY_S)
    assert any("/frobnicate now" in str(r.get("messages")) for r in fakellm.requests)
    term.send("/model\r")
    term.wait_for("openai/fake ●", timeout=FIRST_REPLY_S)  # the picker: the endpoint's /v1/models
    term.send("\x1b")
    term.wait_for("No model chosen; still openai/fake.")
    term.send("/mode plan\r")
    term.wait_for("Permission mode: plan (read-only")
    term.send("/mode\r")
    term.wait(lambda t: t.count("Permission mode: plan") >= 2, what="the mode kept")
    term.send("/quit\r")
    assert term.exit_code() == 0
