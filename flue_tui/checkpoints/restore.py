"""Writing a checkpoint's files back: exact bytes, never through a symlink, never outside the workspace.

Blobs come from `git cat-file --batch`, one at a time (a huge tree is never held in memory), not
`git checkout`, so no filter or end-of-line rule can touch them. Every path is reached by the
descriptor walk of `core/files.walk_dirs`: each directory is opened from its parent's descriptor
with O_NOFOLLOW, and the file is created, renamed over or unlinked relative to the last one
(openat/renameat/unlinkat), so a directory swapped for a symlink mid-restore cannot send a write or
a removal outside the workspace. One path that cannot be restored is reported and the rest go on;
what to remove at all is decided by the caller (store.py), which removes only what its checkpoint
vouches did not exist.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from flue_tui.core.files import walk_dirs

if TYPE_CHECKING:
    import subprocess

    from flue_tui.checkpoints.git import Git

_ZERO = "0" * 40
_CHUNK = 1 << 20
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class RawChange:
    """One line of `git diff --raw` between the workspace and a checkpoint."""

    old_mode: str
    new_mode: str
    new_sha: str
    status: str  # A (only in the target), D (only now), M, T
    path: str
    old_sha: str = ""  # the blob now (the diff's first side)


@dataclass(slots=True)
class Applied:
    """What a restore wrote, removed, and could not put back."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was not restored)


def parse_raw_diff(out: bytes) -> list[RawChange]:
    parts = out.split(b"\0")
    changes: list[RawChange] = []
    i = 0
    while i + 1 < len(parts):
        meta = parts[i].decode()
        if not meta.startswith(":"):
            i += 1
            continue
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].split(" ")
        changes.append(RawChange(old_mode, new_mode, new_sha, status[:1], os.fsdecode(parts[i + 1]), old_sha))
        i += 2
    return changes


def apply_changes(git: Git, workspace: str, removals: list[str], writes: list[RawChange]) -> Applied:
    """Remove `removals`, then write each of `writes`' target blobs (removals first: a path that is
    a file now may need to become a directory, and vice versa)."""
    done = Applied()
    root = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for rel in removals:
            why = _guard(lambda rel=rel: _remove(root, rel))
            if why is None:
                done.removed.append(rel)
            elif why:
                done.failed.append((rel, why))
        if writes:
            blobs = _Blobs(git)
            try:
                for change in writes:
                    why = _guard(lambda change=change: _write(root, change, blobs))
                    if why is None:
                        done.written.append(change.path)
                    else:
                        done.failed.append((change.path, why))
            finally:
                blobs.close()
    finally:
        os.close(root)
    done.removed = [p for p in done.removed if p not in set(done.written)]
    return done


def _guard(step: object) -> str | None:
    """Run one path's step: None when done, "" when there was nothing to do, else why not."""
    try:
        return step()  # type: ignore[operator]
    except FileNotFoundError:
        return ""
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return "a symlink or file is where its directory was, so it was not followed"
        return exc.strerror or str(exc)


class _Blobs:
    """`git cat-file --batch`, asked one object at a time (it flushes after each without --buffer)."""

    def __init__(self, git: Git) -> None:
        self.proc: subprocess.Popen[bytes] = git.popen(["cat-file", "--batch"])

    def open(self, sha: str) -> int:
        """Ask for `sha`; returns its size, its bytes are next on stdout."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) != 3:
            raise OSError(errno.EIO, "its content is missing from the checkpoint store")
        return int(header[2])

    def copy(self, size: int, fd: int | None) -> bytes:
        assert self.proc.stdout is not None
        kept = bytearray()
        failed: OSError | None = None
        left = size
        while left:
            chunk = self.proc.stdout.read(min(left, _CHUNK))
            if not chunk:
                raise OSError(errno.EIO, "the checkpoint store stopped answering")
            left -= len(chunk)
            if fd is None:
                kept += chunk
            elif failed is None:
                view = memoryview(chunk)
                try:
                    while view:
                        view = view[os.write(fd, view) :]
                except OSError as exc:  # read the object to its end all the same: the next one follows it
                    failed = exc
        self.proc.stdout.read(1)  # the newline after each object
        if failed is not None:
            raise failed
        return bytes(kept)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        self.proc.wait()


def _split(rel: str) -> tuple[list[str], str]:
    parts = rel.split("/")
    return parts[:-1], parts[-1]


def _write(root: int, change: RawChange, blobs: _Blobs) -> str | None:
    dirs, name = _split(change.path)
    fds = walk_dirs(root, dirs, create=True)
    parent = fds[-1] if fds else root
    try:
        try:
            current: os.stat_result | None = os.lstat(name, dir_fd=parent)
        except FileNotFoundError:
            current = None
        if current is not None and stat.S_ISDIR(current.st_mode):
            return "a directory is there now"
        if current is not None and change.status == "A":
            # On disk, yet in neither state: not captured now (ignored, unreadable, too big).
            return "on disk now but not captured now (ignored, unreadable or too big), so it was left as it is"
        size = blobs.open(change.new_sha)
        if change.new_mode == "120000":
            target = blobs.copy(size, None)
            if current is not None:
                os.unlink(name, dir_fd=parent)
            os.symlink(os.fsdecode(target), name, dir_fd=parent)
            return None
        tmp = f".flue-restore-{os.getpid()}"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=parent)
        fd = os.open(tmp, _FILE_FLAGS, 0o600, dir_fd=parent)
        try:
            try:
                blobs.copy(size, fd)
                os.fchmod(fd, _permissions(current, executable=change.new_mode == "100755"))
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=parent)
            raise
        return None
    finally:
        for fd in fds:
            os.close(fd)


def _permissions(current: os.stat_result | None, *, executable: bool) -> int:
    """Git records only the executable bit: keep a file's other permission bits, unless its owner
    could no longer read it (a turn's `chmod 000` is undone too)."""
    umask = os.umask(0)
    os.umask(umask)
    if current is None or not stat.S_ISREG(current.st_mode) or not current.st_mode & stat.S_IRUSR:
        return (0o777 if executable else 0o666) & ~umask
    bits = stat.S_IMODE(current.st_mode)
    return bits | ((bits & 0o444) >> 2) if executable else bits & ~0o111


def _remove(root: int, rel: str) -> str | None:
    dirs, name = _split(rel)
    fds = walk_dirs(root, dirs, create=False)
    try:
        parent = fds[-1] if fds else root
        if stat.S_ISDIR(os.lstat(name, dir_fd=parent).st_mode):
            return "a directory is there now"
        os.unlink(name, dir_fd=parent)
        # Drop directories the removal emptied (they did not exist in the target): rmdir only ever
        # takes an empty one, and each is named relative to its parent's descriptor.
        for i in range(len(fds) - 1, -1, -1):
            try:
                os.rmdir(dirs[i], dir_fd=fds[i - 1] if i else root)
            except OSError:
                break
        return None
    finally:
        for fd in fds:
            os.close(fd)
