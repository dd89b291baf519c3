"""Issue 23: a directory swapped for a symlink during a restore never sends a removal or a write
outside the workspace.

Before: checkpoints/restore.py checked each parent with lstat, then removed and wrote by path, so a
process flipping `sub` between the real directory and a symlink to an outside folder got outside
files deleted and overwritten. Now every path is reached by the file tools' descriptor walk
(core/files.walk_dirs: openat with O_NOFOLLOW from the workspace's descriptor, unlinkat/renameat
relative to the last one), so the flip can only make a path fail, said in `not_restored`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from flue_tui.checkpoints import FileCheckpoints

FILES = 300
ROUNDS = 12

# A separate process, like the attacker: swaps ws/sub for a symlink to the outside folder and back.
FLIP = """
import os, sys
ws, outside = sys.argv[1], sys.argv[2]
sub, aside = os.path.join(ws, "sub"), os.path.join(ws, "sub.aside")
print("ready", flush=True)
while True:
    try:
        os.rename(sub, aside)
        os.symlink(outside, sub)
        os.unlink(sub)
        os.rename(aside, sub)
    except OSError:
        pass
"""


def _fill(where: Path, prefix: str, text: str) -> None:
    for i in range(FILES):
        (where / f"{prefix}{i}").write_text(text)


def test_a_restore_racing_a_symlink_swap_never_touches_outside(tmp_path: Path):
    ws, outside, home = tmp_path / "ws", tmp_path / "outside", tmp_path / "home"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    _fill(outside, "w", "outside\n")
    _fill(outside, "r", "outside\n")
    _fill(ws / "sub", "w", "checkpoint\n")
    files = FileCheckpoints(ws, home)
    first = files.snapshot("t/1")
    flipper = subprocess.Popen([sys.executable, "-c", FLIP, str(ws), str(outside)], stdout=subprocess.PIPE, text=True)
    try:
        assert flipper.stdout is not None and flipper.stdout.readline() == "ready\n"
        for _ in range(ROUNDS):
            # Between rounds, with the flipper paused, put `sub` back and change it: FILES writes and
            # FILES removals for the next restore.
            os.kill(flipper.pid, signal.SIGSTOP)
            os.waitpid(flipper.pid, os.WUNTRACED)  # really stopped, wherever it was
            if not (ws / "sub").is_dir() or (ws / "sub").is_symlink():
                if (ws / "sub").is_symlink():
                    os.unlink(ws / "sub")
                os.rename(ws / "sub.aside", ws / "sub")
            _fill(ws / "sub", "w", "changed\n")
            _fill(ws / "sub", "r", "to remove\n")
            os.kill(flipper.pid, signal.SIGCONT)
            files.restore(first.commit)
    finally:
        flipper.kill()
        flipper.wait(30)
        if flipper.stdout is not None:
            flipper.stdout.close()
    assert sorted(os.listdir(outside)) == sorted([f"w{i}" for i in range(FILES)] + [f"r{i}" for i in range(FILES)])
    assert {(outside / n).read_text() for n in os.listdir(outside)} == {"outside\n"}
