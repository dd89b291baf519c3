"""Inline `--continue` draws the resumed messages the way live output was drawn (the same entries,
the same renderer), not in `flue sessions show`'s style (raw `**bold**`, `· grep {...}`)."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.inline.conftest import CTRL_C, in_order

FIRST_REPLY_S = 120.0


def test_resume_shows_history_like_live_output(inline, fakellm, work: Path):
    (work / "notes.txt").write_text("needle here\n")
    fakellm.script(
        [
            Turn(calls=[Call("grep", {"pattern": "need+le", "include": "*.txt"})]),
            Turn(text="Found it: **bold** and `code`."),
        ]
    )
    term = inline("--permission-mode", "yolo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("look for it\r")
    term.wait_for("Found it: bold and code.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt again")
    live = [ln for ln in term.lines() if "✓ grep" in ln]
    term.send(CTRL_C)
    term.wait_for("Ctrl+C again to quit")
    term.send(CTRL_C)
    assert term.exit_code() == 0
    assert live and "need+le" in live[0]

    again = inline("--continue")
    again.wait_for("Resumed", timeout=FIRST_REPLY_S)
    lines = again.lines()
    in_order(lines, "› look for it", "✓ grep  need+le  (*.txt)", "Found it: bold and code.", "Resumed")
    assert next(ln for ln in lines if "✓ grep" in ln).strip() == live[0].strip()
    text = "\n".join(lines)
    assert "**bold**" not in text and "· grep" not in text
    again.send(CTRL_C)
    again.send(CTRL_C)
