"""Issue 23: a rewind killed part-way never loses work, and two rewinds in a row keep both undo points.

Before: a restore ran its removals first and recorded its undo point only once it had finished,
so `flue sessions rewind` killed (kill -9 or SIGTERM) while writing left the user's newer file gone,
nothing restored, and `--undo` said there was nothing to undo. And the second of two rewinds
replaced the first's undo point, so what the user wrote before the first was lost to `--undo`.
Now the undo point is pushed on a stack before any file is touched (checkpoints/stack.py).
The kills are exact: a stand-in git (tests/security/heldgit.py) stops at a known call and waits.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakellm import Call, Turn
from tests.security.heldgit import held

MODEL = ("--model", "openai/fake")
FILES = 20
ROOT = Path(__file__).resolve().parents[2]


def _tree(ws: Path) -> dict[str, bytes]:
    return {p.relative_to(ws).as_posix(): p.read_bytes() for p in sorted(ws.rglob("*")) if p.is_file()}


def _one_turn(fakellm, flue_main, ws: Path) -> None:
    """Session "work": one turn whose bash rewrites every file (so a rewind writes FILES blobs)."""
    for i in range(FILES):
        (ws / f"f{i}.txt").write_text(f"original {i}\n")
    command = f"for i in $(seq 0 {FILES - 1}); do echo changed $i > f$i.txt; done"
    fakellm.script([Turn(calls=[Call("bash", {"command": command}, id="b1")]), Turn(text="Changed.")])
    out = flue_main("-p", "--permission-mode", "yolo", "change them all", "--session", "work", *MODEL, cwd=ws)
    assert out.code == 0, out.stderr
    assert (ws / "f3.txt").read_text() == "changed 3\n"


def _wait(path: Path, proc: subprocess.Popen, limit: float = 180) -> None:
    deadline = time.monotonic() + limit  # generous: a loaded machine; a condition, not a delay
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the stand-in git was never reached"
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("command", "nth", "blobs", "signum"),
    [
        # The first blob read is the turn's claims (what its bash wrote: checkpoints/claims.py).
        ("cat-file", 1, 1, signal.SIGKILL),  # the removals done, no file written yet
        ("cat-file", 1, 8, signal.SIGKILL),  # 7 of the 20 files written
        ("cat-file", 1, 1, signal.SIGTERM),
        ("status", 2, None, signal.SIGKILL),  # every file written, the state after not yet kept
    ],
)
def test_a_rewind_killed_part_way_is_undone_with_the_users_newer_work(
    fakellm, flue_main, flue_env, tmp_path, command, nth, blobs, signum
):
    ws = tmp_path / "proj"
    ws.mkdir()
    _one_turn(fakellm, flue_main, ws)
    (ws / "newer.txt").write_text("my newer work\n")  # the user's, after the turn
    (ws / "f3.txt").write_text("my edit of f3\n")
    wanted = _tree(ws)

    stop = held(tmp_path, command, nth=nth, blobs=blobs)
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "sessions", "rewind", "work", "--to", "1", "--code", "--force"],
        cwd=ws,
        env={**flue_env, "FLUE_GIT": str(stop.git)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _wait(stop.reached, proc)
        os.killpg(proc.pid, signum)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode != 0

    out = flue_main("sessions", "rewind", "work", "--undo", cwd=ws)
    assert out.code == 0, out.stderr
    assert _tree(ws) == wanted  # the newer file, the user's edit, the turn's files: all back


def test_two_rewinds_in_a_row_undo_walks_back_through_both(fakellm, flue_main, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "a.txt", "content": "turn 1\n"}, id="w1")]),
            Turn(text="One."),
            Turn(calls=[Call("write", {"path": "b.txt", "content": "turn 2\n"}, id="w2")]),
            Turn(text="Two."),
        ]
    )
    for prompt in ("one", "two"):
        assert flue_main("-p", "--permission-mode", "yolo", prompt, "--session", "work", *MODEL, cwd=ws).code == 0
    (ws / "mine.txt").write_text("written before the first rewind\n")
    first = _tree(ws)
    assert flue_main("sessions", "rewind", "work", "--to", "2", "--code", "--force", cwd=ws).code == 0
    assert not (ws / "mine.txt").exists() and (ws / "a.txt").exists() and not (ws / "b.txt").exists()
    (ws / "between.txt").write_text("written between the two rewinds\n")
    second = _tree(ws)
    assert flue_main("sessions", "rewind", "work", "--to", "1", "--code", "--force", cwd=ws).code == 0
    assert _tree(ws) == {}

    out = flue_main("sessions", "rewind", "work", "--undo", cwd=ws)
    assert out.code == 0, out.stderr
    assert _tree(ws) == second and "1 more undo left" in out.stdout
    out = flue_main("sessions", "rewind", "work", "--undo", cwd=ws)
    assert out.code == 0, out.stderr
    assert _tree(ws) == first
    out = flue_main("sessions", "rewind", "work", "--undo", cwd=ws)
    assert out.code == 1 and "no code rewind to undo" in out.stderr
    # And forward again: redo re-applies the rewinds in order.
    assert flue_main("sessions", "rewind", "work", "--redo", cwd=ws).code == 0
    assert _tree(ws) == second
    assert flue_main("sessions", "rewind", "work", "--redo", cwd=ws).code == 0
    assert _tree(ws) == {}


def test_an_undo_killed_part_way_is_finished_by_the_next_undo(fakellm, flue_main, flue_env, tmp_path):
    ws = tmp_path / "proj"
    ws.mkdir()
    _one_turn(fakellm, flue_main, ws)
    (ws / "newer.txt").write_text("my newer work\n")
    wanted = _tree(ws)
    assert flue_main("sessions", "rewind", "work", "--to", "1", "--code", "--force", cwd=ws).code == 0
    stop = held(tmp_path, "cat-file", blobs=3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "sessions", "rewind", "work", "--undo"],
        cwd=ws,
        env={**flue_env, "FLUE_GIT": str(stop.git)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _wait(stop.reached, proc)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert _tree(ws) != wanted  # killed with 3 of its files written
    out = flue_main("sessions", "rewind", "work", "--undo", cwd=ws)
    assert out.code == 0, out.stderr
    assert _tree(ws) == wanted
