"""Inline mode's first screen, its no-key screen and its toolbar (issue 17, items 9, 10 and 13):
a fresh session is greeted and a resumed one is not; a prompt that could only fail for want of a
key is refused at once and comes back in the input; the toolbar fits the terminal by priority
instead of being cut at its edge."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn
from tests.inline.conftest import CTRL_C, ESC

FIRST_REPLY_S = 120.0


def _prompt(term) -> None:
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")


def test_a_fresh_session_is_welcomed_and_a_resumed_one_is_not(inline, fakellm, work: Path):
    fakellm.script([Turn(text="Hello back.")])
    term = inline(rows=24, cols=80)
    term.wait_for("Run /init to create an AGENTS.md for this repository", timeout=FIRST_REPLY_S)
    text = term.text()
    welcome = [ln for ln in text.splitlines() if ln.strip()][:4]
    assert welcome[0].startswith("✻ Welcome to flue · ") and welcome[0].endswith("/work")
    assert welcome[1].strip() == "openai/fake · ask mode · local sandbox"
    assert "Ctrl+C interrupts" in welcome[2] and all(len(ln) <= 80 for ln in welcome)
    _prompt(term)
    term.send("hello\r")
    term.wait_for("Hello back.", timeout=FIRST_REPLY_S)
    _prompt(term)
    term.send(CTRL_C)
    term.wait_for("Ctrl+C again to quit")
    term.send(CTRL_C)
    assert term.exit_code() == 0

    again = inline("--continue", rows=24, cols=80)
    again.wait_for("Resumed", timeout=FIRST_REPLY_S)
    assert "Welcome to flue" not in again.text()


def test_the_first_screen_has_the_welcome_with_the_prompt(inline, fakellm, work: Path):
    """Issue 30: the welcome came 2-3 s after the input (once the session had started), so the
    first screen at 80x24 was an input alone. It is printed before the prompt is drawn."""
    fakellm.script([Turn(text="Hi.")])
    term = inline(rows=24, cols=80)
    _prompt(term)
    first = term.screen_text()
    assert "✻ Welcome to flue · " in first and "openai/fake · ask mode · local sandbox" in first, first
    term.send("hello\r")
    term.wait_for("Hi.", timeout=FIRST_REPLY_S)
    assert term.text().count("Welcome to flue") == 1  # not said again when the session starts
    term.send(CTRL_C)
    term.send(CTRL_C)
    assert term.exit_code() == 0


def test_no_key_prompt_is_refused_and_kept(inline, fakellm):
    fakellm.script([Turn(text="Sent after all.")])
    term = inline("--model", "anthropic/claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": ""}, rows=30, cols=100)
    term.wait_for("No API key for anthropic/claude-sonnet-4-5", timeout=FIRST_REPLY_S)
    term.wait_for("`flue doctor` checks the setup.")
    assert "OPENAI_BASE_URL" in term.text() and "ollama_chat/" in term.text()
    _prompt(term)
    term.send("fix the bug\r")
    term.wait_for("your prompt is kept", timeout=FIRST_REPLY_S)
    term.wait(lambda t: term.prompt_line() == "› fix the bug", what="the prompt kept in the input")
    assert fakellm.requests == []
    term.send(ESC + ESC)  # clear it, switch to a model that works, and send it again
    term.wait(lambda t: term.prompt_line() == "›", what="an empty prompt")
    term.send("/model openai/fake\r")
    term.wait_for("Model: openai/fake")
    _prompt(term)
    term.send("fix the bug\r")
    term.wait_for("Sent after all.", timeout=FIRST_REPLY_S)
    assert "fix the bug" in str(fakellm.requests[-1]["messages"])


def test_the_toolbar_fits_120_columns_by_priority(inline):
    name = "a-session-name-long-enough-to-push-everything-else-past-the-right-edge-of-the-screen"
    term = inline("--session", name, cols=120)
    term.wait(lambda t: "ask mode · 0 in" in term.screen_text(), timeout=FIRST_REPLY_S, what="the toolbar")
    [bar] = [ln for ln in term.screen_text().splitlines() if "ask mode · 0 in" in ln]
    # The key hints and the long name give way; the mode and the totals are whole.
    assert bar.strip() == "openai/fake · ask mode · 0 in · 0 out", bar


def test_a_long_turn_ends_with_a_notification_and_a_short_one_without(inline, fakellm):
    """Inline mode cannot see focus reports while a turn runs, so a turn of NOTIFY_AFTER_S or more
    notifies (OSC 9 + BEL) and a quick one does not."""
    from flue_tui.ui.notify import NOTIFY_AFTER_S

    fakellm.script([Turn(text="Quick."), Turn(text="Slow.", delay=NOTIFY_AFTER_S + 1)])  # in order
    term = inline(rows=24, cols=100)
    _prompt(term)
    term.send("quick\r")
    term.wait_for("Quick.", timeout=FIRST_REPLY_S)
    _prompt(term)
    assert "\x1b]9;" not in "".join(term.raw)
    term.send("slow\r")
    term.wait_for("Slow.", timeout=FIRST_REPLY_S + NOTIFY_AFTER_S)
    term.wait(lambda t: "\x1b]9;" in "".join(term.raw), what="the notification")
    raw = "".join(term.raw)
    note = raw[raw.index("\x1b]9;") :]
    assert note.startswith("\x1b]9;flue · quick: done after ") and "\x07\x07" in note
