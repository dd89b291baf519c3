"""A session lock whose holder died (kill -9) while a child of it was between fork and exec: the
child shares the lock a moment longer. The next flue waits that out instead of naming a dead
process as the one recording (store/lock.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from flue_tui.store import lock

HOLDER = r"""
import os, sys, time
from flue_tui.store import lock
lock.acquire(sys.argv[1], "ses_x", label="Session x", ref="ses_x", owner="flue -p")
if os.fork() == 0:  # the child keeps the lock's fd, as a command half-way to exec does
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # not the test's pipes: only the lock is kept
    os.dup2(null, 2)
    time.sleep(float(sys.argv[2]))
    os._exit(0)
print("held", flush=True)
os._exit(0)  # the holder dies without tidying: its child still shares the lock
"""


def _holder_died(db: str, child_s: float) -> None:
    out = subprocess.run([sys.executable, "-c", HOLDER, db, str(child_s)], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "held", out.stderr


def test_a_dead_holders_lingering_child_is_waited_out(tmp_path: Path):
    db = str(tmp_path / "sessions.db")
    _holder_died(db, 0.5)
    got = lock.acquire(db, "ses_x", label="Session x", ref="ses_x", owner="test")
    assert got is not None
    got.release()


def test_a_lock_still_held_after_the_wait_names_its_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(lock, "DEAD_HOLDER_WAIT_S", 0.2)
    db = str(tmp_path / "sessions.db")
    _holder_died(db, 5)
    with pytest.raises(lock.SessionInUse, match=r"in use by another flue: pid \d+ \(flue -p, since "):
        lock.acquire(db, "ses_x", label="Session x", ref="ses_x", owner="test")
