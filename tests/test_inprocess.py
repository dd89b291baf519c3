"""The in-process CLI harness (`flue_main`) gives each run what a process would have and leaves the
test process as it found it."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from flue_tui import __version__


def test_exit_codes_streams_and_what_it_puts_back(flue_main, flue_env, tmp_path):
    before = (dict(os.environ), os.getcwd(), sys.stdout, sys.stderr, signal.getsignal(signal.SIGTERM))
    version = flue_main("--version")  # argparse ends with SystemExit(0)
    assert (version.code, version.stdout) == (0, f"flue {__version__}\n")
    bad = flue_main("-p", "x", "--max-turns", "zero")  # argparse's error: SystemExit(2), usage on stderr
    assert bad.code == 2 and bad.stdout == "" and "--max-turns" in bad.stderr
    empty = flue_main("-p", "--model", "openai/fake", stdin="  \n")  # stdin is the given text, never a tty
    assert empty.code == 2 and "needs a prompt" in empty.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    listed = flue_main("sessions", "list", cwd=elsewhere, env={**flue_env, "NO_COLOR": "1"})
    assert listed.code == 0, listed.stderr
    assert (dict(os.environ), os.getcwd(), sys.stdout, sys.stderr, signal.getsignal(signal.SIGTERM)) == before


def test_a_run_frees_the_session_lock_it_took_and_only_that(flue_main, fakellm, _isolated_home):
    from flue_tui.store.lock import SessionInUse, acquire
    from tests.fakellm import Turn

    db = str(_isolated_home / "sessions.db")
    mine = acquire(db, "ses_held_by_the_test", label="mine", ref="mine", owner="the test")
    fakellm.script([Turn(text="one"), Turn(text="two")])
    for _ in range(2):  # the second run takes the lock the first one gave back when it ended
        out = flue_main("-p", "hi", "--model", "openai/fake", "--session", "same")
        assert out.code == 0, out.stderr
    assert mine is not None
    with pytest.raises(SessionInUse):  # the test's own lock is still held
        acquire(db, "ses_held_by_the_test", label="mine", ref="mine", owner="the test")
    mine.release()
