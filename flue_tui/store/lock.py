"""One writer per session: an `flock`ed file per session in `<db>.locks/`, beside the database.

SQLite keeps each write whole, but two processes appending to one session interleave their
turns, and the next resume pairs a tool call with the wrong answer. So a process that will record
into a session holds that session's lock until its recorder closes; a second one is refused with
a sentence naming the holder (pid, what it is, since when), which the holder wrote into the file.

The lock is the kernel's: it goes away with its process, however that process ends (kill -9
included), so a stale file never blocks anyone; the file is only a place to lock and to read
who holds it. The fd is not inherited by commands the agent runs (Python opens fds
non-inheritable), so a background job cannot keep a session locked after flue has gone.
"""

from __future__ import annotations

import atexit
import datetime as _dt
import errno
import fcntl
import hashlib
import os
import time
from pathlib import Path

from flue_tui.store.db import MEMORY, StoreError

LOCKS_SUFFIX = ".locks"
DEAD_HOLDER_WAIT_S = 3.0


class SessionInUse(StoreError):
    """Another process (or this one) is recording into the session."""


class SessionLock:
    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        """Remove the file while still holding the lock (a waiter that opened the old file sees it
        was unlinked and retries), then let go."""
        if self._fd is None:
            return
        _held.pop(str(self.path), None)
        try:
            os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


_held: dict[str, SessionLock] = {}


@atexit.register
def _release_all() -> None:  # a normal exit tidies its files; any other exit frees the lock anyway
    for lock in list(_held.values()):
        lock.release()


def lock_path(db_path: str, key: str) -> Path:
    # Keys are ids or (cwd, name) pairs: hashed, so any name makes a safe, fixed-length file name.
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return Path(db_path + LOCKS_SUFFIX) / f"{digest}.lock"


def acquire(db_path: str, key: str, *, label: str, ref: str, owner: str) -> SessionLock | None:
    """Lock `key` (a session id, or `name:<cwd>\\0<name>` for a session not created yet) for this
    process; raises SessionInUse naming the holder. No lock for an in-memory database."""
    if db_path == MEMORY:
        return None
    path = lock_path(db_path, key)
    if str(path) in _held:
        raise SessionInUse(
            f"{label} is already open in this flue (pid {os.getpid()}); two writers would interleave its messages."
        )
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"Cannot create the session lock folder {path.parent}: {exc.strerror or exc}.") from None
    for _ in range(50):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise StoreError(f"Cannot create the session lock {path}: {exc.strerror or exc}.") from None
        try:
            _lock(fd)
        except OSError as exc:
            holder = _read(fd)
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise StoreError(f"Cannot lock {path}: {exc.strerror or exc}.") from None
            raise SessionInUse(_busy_sentence(label, ref, holder)) from None
        if _same_file(fd, path):
            break
        os.close(fd)  # the holder released and unlinked it between our open and our lock: again
    else:
        raise StoreError(f"Cannot lock {path}: it keeps being replaced.")
    since = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S")
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n{owner}\n{since}\n".encode(), 0)
    lock = SessionLock(path, fd)
    _held[str(path)] = lock
    return lock


def _lock(fd: int) -> None:
    """flock, or OSError. A holder that has died (kill -9) may have left a child half-way between
    fork and exec, which shares the lock until it closes its fds a moment later: for a holder whose
    pid is gone, wait up to DEAD_HOLDER_WAIT_S for that, rather than name a dead process as busy."""
    deadline = time.monotonic() + DEAD_HOLDER_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            holder = _read(fd)
            pid = int(holder[0]) if holder and holder[0].isdigit() else 0
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK) or _alive(pid) or time.monotonic() > deadline:
                raise
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return True  # not known: treat as a live holder
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: it exists
    return True


def _same_file(fd: int, path: Path) -> bool:
    try:
        mine, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def _read(fd: int) -> list[str]:
    try:
        return os.pread(fd, 4096, 0).decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def _busy_sentence(label: str, ref: str, holder: list[str]) -> str:
    if len(holder) >= 3 and holder[0].isdigit():
        who = f"another flue: pid {holder[0]} ({holder[1]}, since {holder[2]})"
    else:  # it has only just taken the lock and not yet written its name
        who = "another flue process"
    return (
        f"{label} is in use by {who}. Two writers would interleave its messages, so this one stops; "
        f"wait for the other to finish, or continue on a copy: --resume {ref} --fork-session."
    )
