"""Issue 42, attacked: a cloned repository with a FIFO as a `.gitignore` or `.gitattributes` (in
any folder) stopped every file checkpoint for good: git opens those files with a blocking open, so
the snapshot before the prompt never ended, and the first tool call waited on it for ever. Now a
git that runs long has the workspace searched for such a file: it is stopped, the checkpoint is not
taken, and one notice names the file; the turn runs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.checkpoints.test_others_files import MODEL, WAIT_S
from tests.fakellm import Call, Turn


@pytest.mark.parametrize("place", ["sub/.gitignore", ".gitattributes"])
def test_a_fifo_git_would_read_stops_no_turn(place, fakellm, flue_env, tmp_path):
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    os.mkfifo(ws / place)
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo hi > out.txt"})]), Turn(text="wrote it")])
    try:
        out = subprocess.run(
            [sys.executable, "-m", "flue_tui", "-p", "go", *MODEL],
            cwd=ws, env=flue_env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WAIT_S,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"flue never finished with a FIFO as {place}")
    assert out.returncode == 0 and out.stdout == "wrote it\n", out.stderr
    assert (ws / "out.txt").read_text() == "hi\n"
    notices = [line for line in out.stderr.splitlines() if "[flue:checkpoints]" in line]
    assert len(notices) == 1 and f"{place} is not a regular file" in notices[0], out.stderr
