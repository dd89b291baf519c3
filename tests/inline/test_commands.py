"""Inline slash commands run through the one dispatcher (ui/commands.py) the app uses, so they say
what the app says: `/model` without an id opens the model picker, `/mode`
switches and keeps the mode, an unknown `/word` is answered locally (never sent to the model), and
/clear, /status, /context and /permissions say what the app says."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn

FIRST_REPLY_S = 120.0


def test_model_lists_mode_switches_and_unknown_commands_stay_local(inline, fakellm, work: Path):
    fakellm.script([Turn(text="A prompt after all.")])
    term = inline("--permission-mode", "ask", cols=140)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("//frobnicate stays a prompt\r")  # first, so the session is up for /mode
    term.wait_for("A prompt after all.", timeout=FIRST_REPLY_S)
    term.send("/model\r")
    term.wait_for("openai/fake ●", timeout=FIRST_REPLY_S)  # the picker: the endpoint's /v1/models
    term.send("\x1b")
    term.wait_for("No model chosen; still openai/fake.")
    term.send("/mode plan\r")
    term.wait_for("Permission mode: plan (read-only")
    term.send("/mode\r")
    term.wait(lambda t: t.count("Permission mode: plan") >= 2, what="the mode kept")
    term.send("/moddel now\r")
    term.wait_for("Unknown command /moddel — did you mean /model?")
    term.send("/frobnicate\r")
    term.wait_for("Unknown command /frobnicate. /help lists the commands.")
    assert len(fakellm.requests) == 1  # only the `//` line reached the model
    assert "/moddel" not in str(fakellm.requests) and "/frobnicate stays" in str(fakellm.requests)
    term.send("/status\r")
    term.wait_for("Sandbox:")
    # The whole status, however the terminal's reads split it.
    term.wait(lambda t: "openai/fake" in t and "Mode:" in t and "plan" in t and str(work) in t, what="/status")
    term.send("/context\r")
    term.wait_for("Tool schemas (")
    term.wait_for("Assistant messages:")
    term.send("/permissions\r")
    term.wait_for("Allow rules: none")
    term.send("/clear\r")
    term.wait(lambda t: "/clear" in t and len(fakellm.requests) == 1 and "›" in term.prompt_line(), what="/clear")
    term.send("/quit\r")
    assert term.exit_code() == 0
