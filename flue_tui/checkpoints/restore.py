"""Writing a checkpoint's files back: exact bytes and modes, removals first, never through a symlink.

Blobs come from `git cat-file --batch`, not `git checkout`, so no filter or end-of-line rule can
touch them, and each path is written by us: parents are walked without following symlinks (a
symlink planted in the workspace cannot redirect a restore outside it), files are replaced
atomically, and a path that exists on disk but was captured in neither state is left alone.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.checkpoints.git import Git

_ZERO = "0" * 40


@dataclass(frozen=True, slots=True)
class RawChange:
    old_mode: str
    new_mode: str
    new_sha: str
    status: str  # A (only in the target), D (only now), M, T
    path: str


def parse_raw_diff(out: bytes) -> list[RawChange]:
    parts = out.split(b"\0")
    changes: list[RawChange] = []
    i = 0
    while i + 1 < len(parts):
        meta = parts[i].decode()
        if not meta.startswith(":"):
            i += 1
            continue
        old_mode, new_mode, _old_sha, new_sha, status = meta[1:].split(" ")
        changes.append(RawChange(old_mode, new_mode, new_sha, status[:1], os.fsdecode(parts[i + 1])))
        i += 2
    return changes


def apply_changes(git: Git, workspace: Path, changes: list[RawChange]) -> tuple[list[str], list[str], list[str]]:
    """Make the workspace match the target side of `changes`; returns written, removed, left alone."""
    written: list[str] = []
    removed: list[str] = []
    left: list[str] = []
    # Removals first: a path that is a file now may need to become a directory, and vice versa.
    for change in changes:
        if change.status in ("D", "T") or (change.status == "M" and change.new_mode == "160000"):
            if _remove(workspace, change.path):
                removed.append(change.path)
    writes = [c for c in changes if c.status in ("A", "M", "T") and c.new_sha != _ZERO]
    blobs = _read_blobs(git, [c.new_sha for c in writes if c.new_mode != "160000"])
    for change in writes:
        if change.new_mode == "160000":
            continue  # a nested repository: not ours to restore
        if change.status == "A" and os.path.lexists(workspace / change.path):
            left.append(change.path)  # on disk but captured in neither state (ignored, too big)
            continue
        if _write(workspace, change.path, change.new_mode, blobs[change.new_sha]):
            written.append(change.path)
        else:
            left.append(change.path)
    return written, [p for p in removed if p not in written], left


def _read_blobs(git: Git, shas: list[str]) -> dict[str, bytes]:
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    proc = git.popen(["cat-file", "--batch"])
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(s.encode() + b"\n" for s in wanted))
    proc.stdin.close()
    blobs: dict[str, bytes] = {}
    for sha in wanted:
        header = proc.stdout.readline().split()
        size = int(header[2])
        blobs[sha] = proc.stdout.read(size)
        proc.stdout.read(1)
    proc.wait()
    return blobs


def _safe_parent(workspace: Path, rel: str, *, create: bool) -> Path | None:
    """The real parent directory of `rel`, creating missing ones; None if a component is a symlink
    or not a directory (we never write through a link)."""
    current = workspace
    for part in Path(rel).parts[:-1]:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if not create:
                return None
            os.mkdir(current)
            continue
        if not stat.S_ISDIR(st.st_mode):
            return None
    return current


def _write(workspace: Path, rel: str, mode: str, data: bytes) -> bool:
    parent = _safe_parent(workspace, rel, create=True)
    if parent is None:
        return False
    target = parent / Path(rel).name
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(target).st_mode):
            return False
    if mode == "120000":
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        os.symlink(os.fsdecode(data), target)
        return True
    perms = _permissions(target, executable=mode == "100755")
    tmp = parent / f".{Path(rel).name}.flue-restore-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, perms)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return True


def _permissions(target: Path, *, executable: bool) -> int:
    """Git records only the executable bit: keep the file's other permission bits as they are."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return 0o755 if executable else 0o644
    current = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o644
    return current | ((current & 0o444) >> 2) if executable else current & ~0o111


def _remove(workspace: Path, rel: str) -> bool:
    parent = _safe_parent(workspace, rel, create=False)
    if parent is None:
        return False
    target = parent / Path(rel).name
    try:
        if stat.S_ISDIR(os.lstat(target).st_mode):
            return False
        os.unlink(target)
    except FileNotFoundError:
        return False
    # Drop directories the removal emptied, up to the workspace (they did not exist in the target).
    current = parent
    while current != workspace:
        try:
            os.rmdir(current)
        except OSError:
            break
        current = current.parent
    return True
