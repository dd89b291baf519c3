"""Opening the session database: a private file, WAL, busy retries, and what to do on a bad day.

Policy (documented in docs/sessions.md): only a file that starts with SQLite's header and that
SQLite reports as corrupt is renamed to `<file>.corrupt-<timestamp>` (with its -wal/-shm) and a
fresh database started; anything else in the way (a directory, a user's notes, an unreadable file)
is left alone, and the caller hears why (`Opened.problem`); a file we may read but not write is
opened read-only (`Opened.readonly`); a file from a newer flue is refused, unchanged.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from flue_tui.store.conn import (
    BUSY_TIMEOUT_S,
    MEMORY,
    NewerSchemaError,
    StoreError,
    connect,
    is_busy,
    is_corrupt,
    is_full,
    is_readonly,
    write,
)
from flue_tui.store.dbfile import create_private, examine, make_private, move_aside
from flue_tui.store.migrations import MIGRATIONS, applied_names, migrate

# The store's one entry point; the connection primitives are re-exported for its other modules.
__all__ = [
    "BUSY_TIMEOUT_S",
    "MEMORY",
    "NewerSchemaError",
    "Opened",
    "StoreError",
    "connect",
    "default_path",
    "describe_failure",
    "friendly_errors",
    "is_busy",
    "is_corrupt",
    "is_full",
    "is_readonly",
    "open_database",
    "write",
]


# Opening retries a lock as a whole (connect, WAL switch, migrate, probe) until this many seconds
# have passed: another flue starting at the same moment may hold the file for longer than one busy
# timeout on a loaded machine (switching a fresh file to WAL does not always wait on the handler).
OPEN_PATIENCE_S = 30.0


@dataclass(frozen=True, slots=True)
class Opened:
    conn: sqlite3.Connection
    path: str  # MEMORY when the file could not be used
    notices: tuple[str, ...]
    problem: str | None = None  # why the file is not used (then path is MEMORY): one sentence
    readonly: bool = False  # the file could be read but not written


def default_path() -> Path:
    from flue_tui.config.paths import db_file

    return db_file()


def _open_patiently(path: Path) -> sqlite3.Connection:
    """`_open_file`, tried again from the start while the file stays locked (up to OPEN_PATIENCE_S)."""
    deadline = time.monotonic() + OPEN_PATIENCE_S
    pause = 0.05
    while True:
        try:
            return _open_file(path)
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


def _open_file(path: Path) -> sqlite3.Connection:
    create_private(path)
    make_private(path)
    conn = connect(str(path))
    try:
        migrate(conn, str(path))
        _probe(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _open_readonly(path: Path) -> sqlite3.Connection:
    """A file we may read but not write: reads work, every write fails with SQLITE_READONLY."""
    conn = sqlite3.connect(
        f"file:{urllib.parse.quote(str(path))}?mode=ro",
        uri=True,
        timeout=BUSY_TIMEOUT_S,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        applied, known = applied_names(conn), [fn.__name__ for fn in MIGRATIONS]
        if applied != known:
            raise StoreError(
                f"The session database {path} is read-only and its schema is not this flue's "
                f"({applied[-1] if applied else 'empty'}), so it cannot be updated; make it "
                "writable once, or give another path with --db."
            )
        _probe(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _probe(conn: sqlite3.Connection) -> None:
    """Touch the roots of the tables and indexes every command uses: cheap (a few pages, unlike
    PRAGMA quick_check over a big file) and it finds most damage before a run starts."""
    conn.execute("SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 1").fetchall()
    conn.execute("SELECT max(seq) FROM messages WHERE session_id = ''").fetchall()
    conn.execute("SELECT rowid FROM messages ORDER BY rowid DESC LIMIT 1").fetchall()
    conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'probe' LIMIT 1").fetchall()


def _memory() -> sqlite3.Connection:
    conn = connect(MEMORY)
    migrate(conn, MEMORY)
    return conn


def open_database(path: str | os.PathLike[str] | None = None) -> Opened:
    """Open (creating and migrating as needed) the database; never raises for a bad file except
    NewerSchemaError, which must stop the caller rather than let it write elsewhere silently.
    A file that cannot be used gives an in-memory database and `problem`; the caller decides
    whether that is fatal (a named session, `flue sessions`) or a notice (a fresh app run)."""
    if path is not None and str(path) == MEMORY:
        return Opened(_memory(), MEMORY, ())
    target = Path(path).expanduser() if path is not None else default_path()
    state = examine(target)
    if not state.usable:
        return _unusable(target, state.problem or "")
    if not state.writable:
        try:
            return Opened(_open_readonly(target), str(target), (state.problem or "",), readonly=True)
        except StoreError as exc:
            return _unusable(target, str(exc))
        except sqlite3.Error as exc:
            return _unusable(
                target, f"The session database {target} is read-only ({state.reason}) and could not be read ({exc})."
            )
    try:
        return Opened(_open_patiently(target), str(target), ())
    except NewerSchemaError:
        raise
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):
            raise StoreError(
                f"The session database {target} stayed locked by another process ({exc}). Try again in a moment."
            ) from None
        if not is_corrupt(exc):
            return _unusable(target, f"The session database {target} cannot be used ({exc}).")
        try:
            moved = move_aside(target)
        except OSError as move_exc:
            return _unusable(
                target,
                f"The session database {target} is damaged ({exc}) and could not be "
                f"moved aside ({move_exc.strerror or move_exc}).",
            )
        notice = (
            f"The session database {target} could not be read ({exc}). It was moved aside to "
            f"{moved} and a fresh database was started. To try to recover old sessions: "
            f"sqlite3 {moved} .recover | sqlite3 recovered.db"
        )
        try:
            return Opened(_open_file(target), str(target), (notice,))
        except (OSError, sqlite3.Error) as again:
            return _unusable(
                target, f"The session database {target} cannot be used ({getattr(again, 'strerror', None) or again})."
            )
    except OSError as exc:
        return _unusable(target, f"The session database {target} cannot be used ({exc.strerror or exc}).")


def _unusable(target: Path, problem: str) -> Opened:
    notice = f"{problem} Sessions are not saved this run."
    return Opened(_memory(), MEMORY, (notice,), problem=problem)


@contextlib.contextmanager
def friendly_errors(path: str) -> Iterator[None]:
    """Turn an SQLite failure in the middle of a command into one sentence naming the file."""
    try:
        yield
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise StoreError(
                f"The session database {path} stayed locked by another process ({exc}). Try again in a moment."
            ) from None
        raise StoreError(describe_failure(path, exc)) from None


def describe_failure(path: str, exc: BaseException) -> str:
    """One true sentence for a failed read or write: full, read-only, damaged, or what SQLite said."""
    if is_full(exc):
        return f"The session database {path} could not be written: the disk is full ({exc})."
    if is_readonly(exc):
        return f"The session database {path} is read-only ({exc}); nothing was changed."
    if is_corrupt(exc):
        return (
            f"The session database {path} is damaged ({exc}). Move it aside (mv {path} {path}.bak) "
            "and flue will start a fresh one."
        )
    return f"The session database {path} failed: {exc}."
