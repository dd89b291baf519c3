"""Issue 42, attacked: a session whose turn has not ended (still running, or killed -9) had kept no
claims yet, so another session whose command saw its file appear took that file as its own alone,
and its rewind removed it without a word. A turn's claims are kept as each call makes them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading

import pytest

from tests.checkpoints.test_others_files import WAIT_S, _finish, _named, _start, _until, _write
from tests.fakellm import Call, Turn


@pytest.mark.parametrize("end", ["running", "killed"])
def test_a_file_of_a_turn_not_yet_ended_is_named_by_a_command_that_saw_it(end, fakellm, flue_env, flue_main, tmp_path):
    """A's bash waits for b.txt; B writes it with `write` and its turn is then held open (its next
    reply stalls), or B is killed -9 there. A's rewind must name b.txt, never remove it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    wait = "touch started.txt; for i in $(seq 1 3000); do [ -e b.txt ] && break; sleep 0.05; done; echo a > a.txt"
    hold = threading.Event()
    fakellm.script(
        [
            Turn(match="job A", calls=[Call("bash", {"command": wait})]),
            Turn(match="job A", text="A done"),
            Turn(match="job B", calls=[_write("b.txt", "B's\n")]),
            Turn(match="job B", text="B done", stall_after=0, hold=hold),
        ]
    )
    a = _start(ws, flue_env, "job A")
    b: subprocess.Popen[str] | None = None
    try:
        _until("A's command running", (ws / "started.txt").exists)
        b = _start(ws, flue_env, "job B")
        sid_a = _finish(a)
        _until("B's second request", lambda: sum("job B" in json.dumps(r) for r in fakellm.requests) >= 2)
        if end == "killed":
            os.kill(b.pid, signal.SIGKILL)
            b.wait(timeout=WAIT_S)
        refused = flue_main("sessions", "rewind", sid_a, "--to", "1", "--code", cwd=ws)
        assert (ws / "b.txt").read_text() == "B's\n", refused.stderr
        assert refused.code == 1 and _named(refused.stderr) == ["b.txt"], refused.stderr
    finally:
        hold.set()
        if b is not None and b.poll() is None:
            b.communicate(timeout=WAIT_S)
        if a.poll() is None:
            a.kill()
