"""What sits at the database path, before SQLite touches it.

SQLite opens almost anything and then says "not a database"; a user's `--db notes.md` must not be
renamed or overwritten because of that. So the file is looked at first: only an empty file or one
that starts with SQLite's 16-byte header is ever handed to SQLite (and so can ever be moved aside),
and whether we may write it is asked of the file itself (opening it read-write), not of the mode
bits, which root ignores and `chattr +i` or a read-only mount override.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
_SIDE_FILES = ("-wal", "-shm")


@dataclass(frozen=True, slots=True)
class FileState:
    usable: bool  # SQLite may open it (missing, empty, or an SQLite file)
    writable: bool = True
    problem: str | None = None  # when not usable, or not writable: one sentence naming the file
    reason: str = ""  # the OS's words for a failed open


def stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _strerror(exc: OSError) -> str:
    return exc.strerror or str(exc)


def examine(path: Path) -> FileState:
    """Say what the path holds, without changing it."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if os.path.islink(path):  # SQLite would create the file the link points at, wherever that is
            return FileState(
                False,
                problem=f"The session database path {path} is a symbolic link to a file that does not exist; "
                "flue never creates a database through a link. Give the real path with --db.",
            )
        return FileState(True)
    except OSError as exc:
        return FileState(False, problem=f"The session database {path} cannot be reached ({_strerror(exc)}).")
    if stat.S_ISDIR(info.st_mode):
        return FileState(
            False,
            problem=f"The session database path {path} is a directory, not a file; "
            f"give a file path, e.g. --db {path / 'sessions.db'}.",
        )
    if not stat.S_ISREG(info.st_mode):
        return FileState(
            False, problem=f"The session database path {path} is not a regular file; give a file path with --db."
        )
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        return FileState(
            False,
            problem=f"The session database {path} cannot be read ({_strerror(exc)}); "
            "fix its permissions (it should be yours, mode 0600).",
        )
    if head and head != SQLITE_HEADER:
        return FileState(
            False,
            problem=f"{path} is not an SQLite database, so flue does not use it as the "
            "session database and leaves it as it is; give another path with --db.",
        )
    try:
        os.close(os.open(path, os.O_RDWR))
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ETXTBSY):
            return FileState(
                True,
                writable=False,
                reason=_strerror(exc),
                problem=f"The session database {path} is read-only ({_strerror(exc)}): saved "
                "sessions can be read, but nothing can be saved to it.",
            )
        return FileState(False, problem=f"The session database {path} cannot be opened ({_strerror(exc)}).")
    return FileState(True)


def is_sqlite_file(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def make_private(path: Path) -> None:
    """0600 for the file and its -wal/-shm: transcripts hold secrets. A file that is not ours, or
    that we may not change, is left as it is (the open goes on)."""
    uid = os.geteuid()
    for name in (path, *(path.with_name(path.name + s) for s in _SIDE_FILES)):
        try:
            info = name.stat()
            if info.st_uid == uid and stat.S_ISREG(info.st_mode) and info.st_mode & 0o077:
                os.chmod(name, stat.S_IMODE(info.st_mode) & 0o700)
        except OSError:
            pass


def create_private(path: Path) -> None:
    """Create the file 0600 ourselves; SQLite would use 0644."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(fd)


def move_aside(path: Path) -> Path:
    """Rename a damaged SQLite file (with its -wal/-shm) out of the way. Refuses anything else."""
    if not is_sqlite_file(path):
        raise OSError(errno.EINVAL, "it is not an SQLite file, so it was left where it is")
    target = path.with_name(f"{path.name}.corrupt-{stamp()}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp()}-{n}")
        n += 1
    os.replace(path, target)
    for suffix in _SIDE_FILES:
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    return target
