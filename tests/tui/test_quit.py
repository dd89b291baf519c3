"""Quitting the app (the real `flue` in a pseudo-terminal): Ctrl+C twice while a reply still streams
ends the process without waiting for the stream, keeps what had streamed, and prints how to resume
on the normal terminal once the app has left the alternate screen."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.fakellm import Turn
from tests.inline.conftest import CTRL_C, Term

FIRST_REPLY_S = 120.0


def test_ctrl_c_twice_mid_stream_keeps_the_text_and_prints_the_hint(flue_env, fakellm, tmp_path: Path, run_flue):
    work = tmp_path / "work"
    work.mkdir()
    # A reply that would stream for minutes: quitting must not wait for it.
    fakellm.script([Turn(text="streamed-words " + "more " * 5000, chunk_delay=0.05)])
    env = {k: v for k, v in flue_env.items() if k != "NO_COLOR"} | {"TERM": "xterm-256color"}
    term = Term([sys.executable, "-m", "flue_tui", "--model", "openai/fake"], env=env, cwd=work, rows=24, cols=80)
    try:
        term.wait_for("Message flue", timeout=60)
        term.wait(lambda t: "new session" in t, timeout=60, what="the session")
        term.send("tell me")
        term.wait_for("tell me", timeout=60)
        term.send("\r")
        term.wait_for("streamed-words", timeout=FIRST_REPLY_S)
        term.send(CTRL_C)
        term.send(CTRL_C)
        assert term.exit_code() == 0  # generous: the stream is still open on the server
    finally:
        term.close()
    screen = term.screen_text()
    found = re.search(r"Resume this session with: flue --resume (ses_\w+)", screen)
    assert found, screen
    shown = run_flue("sessions", "show", found.group(1), cwd=work)
    assert "tell me" in shown.stdout and "streamed-words" in shown.stdout, shown.stdout
