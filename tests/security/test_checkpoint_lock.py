"""Issue 23: a `kill -9` of flue's process group during the first snapshot no longer breaks every
later checkpoint in that workspace, and a checkpoint that could not be taken is said on stderr.

Before: the killed git's `index.lock` stayed in the checkpoint store, every later `git add` failed
on it, and `flue -p` said so only in the events stream (`--output-format events`). Now the store's
git locks are cleared once flue holds its own lock on the store (every git that writes the store
runs holding that lock, so a lock file found then is stale), and a checkpoint notice is one line on
stderr in every output format.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from tests.fakellm import Turn
from tests.security.heldgit import held

MODEL = ("--model", "openai/fake")


def test_a_kill_during_the_first_snapshot_leaves_no_lock_that_fails_later_checkpoints(
    fakellm, flue_main, flue_env, tmp_path
):
    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "a.txt").write_text("a\n")
    stop = held(tmp_path, "add", lock=True)  # git's index.lock taken, then killed holding it
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "hello", "--session", "first", *MODEL],
        cwd=ws,
        env={**flue_env, "FLUE_GIT": str(stop.git)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180  # a condition with a generous limit, not a delay
        while not stop.reached.exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()

    fakellm.script([Turn(text="Hi."), Turn(text="Hi again.")])
    for name in ("second", "third"):
        out = flue_main("-p", "hello", "--session", name, *MODEL, "--output-format", "json", cwd=ws)
        assert out.code == 0, out.stderr
        result = json.loads(out.stdout.splitlines()[-1])
        assert result["checkpoint"] is not None and "checkpoints" not in out.stderr, out.stderr


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json", "events"])
def test_a_checkpoint_not_taken_is_one_line_on_stderr_in_every_format(fakellm, flue_main, flue_env, tmp_path, fmt):
    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "a.txt").write_text("a\n")
    broken = tmp_path / "git-broken"
    broken.write_text(
        '#!/bin/sh\nif [ "$1" = write-tree ]; then echo "fatal: simulated failure" >&2; exit 128; fi\nexec git "$@"\n'
    )
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    fakellm.script([Turn(text="Hi.")])
    extra = ("--verbose",) if fmt == "stream-json" else ()
    out = flue_main(
        "-p", "hello", *MODEL, "--output-format", fmt, *extra, cwd=ws, env={**flue_env, "FLUE_GIT": str(broken)}
    )
    assert out.code == 0, out.stderr
    said = [ln for ln in out.stderr.splitlines() if "checkpoint" in ln.lower()]
    assert said == [
        "[flue:checkpoints] File checkpoint before message 1 was not taken (fatal: simulated failure); "
        "the conversation is still saved."
    ], out.stderr
