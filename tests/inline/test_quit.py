"""Quitting inline: Ctrl+C twice while a command runs ends flue without waiting for the command (its
process group goes too), keeps the session, and prints how to resume it; nothing typed, no hint."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.fakellm import Call, Turn
from tests.inline.conftest import CTRL_C

FIRST_REPLY_S = 120.0


def _group_gone(pgid: int, timeout: float = 90.0) -> bool:  # generous: returns once it is gone
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
        time.sleep(0.1)
    return False


def test_ctrl_c_twice_during_a_command_quits_and_says_how_to_resume(inline, fakellm, work: Path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo $$ > pgid; echo started; sleep 1000"})])])
    term = inline("--permission-mode", "yolo", "--session", "quit test")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("run it\r")
    term.wait(lambda t: (work / "pgid").exists() and "│ started" in t, timeout=FIRST_REPLY_S, what="the command")
    pgid = int((work / "pgid").read_text())
    term.send(CTRL_C)
    term.send(CTRL_C)
    # Generous: the point is that exit does not wait for `sleep 1000` (or anything else).
    assert term.exit_code() == 0
    assert _group_gone(pgid), "the command's process group outlived flue"
    lines = term.lines()
    hint = [ln for ln in lines if ln.startswith("Resume this session with:")]
    assert hint == ["Resume this session with: flue --session 'quit test'"], lines[-10:]
    # Nothing after it: litellm's exit handler once printed a "never awaited" RuntimeWarning here.
    assert "Warning" not in term.text() and "Traceback" not in term.text(), lines[-10:]


def test_no_hint_when_nothing_was_saved(inline, work: Path):
    term = inline()
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("\x04")  # Ctrl+D on an empty line
    assert term.exit_code() == 0
    assert "Resume this session" not in term.text()
