"""Opening the session database: a private file, WAL, busy retries, and what to do on a bad day.

Policy (documented in README "Sessions"): a file SQLite reports as corrupt or not a database is
renamed to `<file>.corrupt-<timestamp>` (with its -wal/-shm) and a fresh database is started; a
file we may not open or write is left alone and this run keeps its sessions in memory; a file from
a newer flue is refused, unchanged. Each case produces one notice naming the file.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BUSY_TIMEOUT_S = 5.0
# BEGIN IMMEDIATE waits BUSY_TIMEOUT_S per attempt; a writer holding the lock for longer than all
# attempts together is stuck, and then the user hears about it.
BEGIN_ATTEMPTS = 6
DB_NAME = "sessions.db"
MEMORY = ":memory:"
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED


class StoreError(Exception):
    """A database problem, worded for the user."""


class NewerSchemaError(StoreError):
    pass


@dataclass(frozen=True, slots=True)
class Opened:
    conn: sqlite3.Connection
    path: str  # MEMORY when the file could not be used
    notices: tuple[str, ...]


def default_path() -> Path:
    from flue_tui.config.paths import flue_home

    return flue_home() / DB_NAME


def stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _code(exc: sqlite3.Error) -> int:
    return (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def is_corrupt(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    return _code(exc) in _CORRUPT_CODES or "not a database" in str(exc) or "malformed" in str(exc)


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and (
        _code(exc) in _BUSY_CODES or "locked" in str(exc) or "busy" in str(exc))


def _create_private(path: Path) -> None:
    """Create the file 0600 ourselves; SQLite would use 0644, and transcripts hold secrets."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(fd)


def connect(path: str) -> sqlite3.Connection:
    """A connection in autocommit mode: every transaction is an explicit `write()` block."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    if path != MEMORY:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")  # durable to the last commit when the process dies
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    return conn


@contextlib.contextmanager
def write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One short write transaction. BEGIN IMMEDIATE takes the write lock up front, so a second
    process waits (busy timeout, then retries) instead of failing on a read-to-write upgrade."""
    if conn.in_transaction:  # nested: join the outer transaction
        yield conn
        return
    for attempt in range(BEGIN_ATTEMPTS):
        try:
            conn.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or attempt == BEGIN_ATTEMPTS - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _move_aside(path: Path) -> Path:
    target = path.with_name(f"{path.name}.corrupt-{stamp()}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp()}-{n}")
        n += 1
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, target.with_name(target.name + suffix))
    return target


def _open_file(path: Path) -> sqlite3.Connection:
    from flue_tui.store.migrations import migrate

    _create_private(path)
    conn = connect(str(path))
    try:
        migrate(conn, str(path))
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
    from flue_tui.store.migrations import migrate

    conn = connect(MEMORY)
    migrate(conn, MEMORY)
    return conn


def open_database(path: str | os.PathLike[str] | None = None) -> Opened:
    """Open (creating and migrating as needed) the database; never raises for a bad file except
    NewerSchemaError, which must stop the caller rather than let it write elsewhere silently."""
    if path is not None and str(path) == MEMORY:
        return Opened(_memory(), MEMORY, ())
    target = Path(path).expanduser() if path is not None else default_path()
    try:
        return Opened(_open_file(target), str(target), ())
    except NewerSchemaError:
        raise
    except sqlite3.DatabaseError as exc:
        if is_busy(exc):
            raise StoreError(f"The session database {target} stayed locked by another process "
                             f"({exc}). Try again in a moment.") from None
        if not is_corrupt(exc):
            return _unusable(target, exc)
        try:
            moved = _move_aside(target)
        except OSError as move_exc:
            return _unusable(target, move_exc)
        notice = (f"The session database {target} could not be read ({exc}). It was moved aside to "
                  f"{moved} and a fresh database was started. To try to recover old sessions: "
                  f"sqlite3 {moved} .recover | sqlite3 recovered.db")
        try:
            return Opened(_open_file(target), str(target), (notice,))
        except (OSError, sqlite3.Error) as again:
            return _unusable(target, again)
    except OSError as exc:
        return _unusable(target, exc)


def _unusable(target: Path, exc: BaseException) -> Opened:
    reason = getattr(exc, "strerror", None) or str(exc)
    notice = (f"The session database {target} cannot be used ({reason}). Sessions are not saved this run. "
              f"Fix its permissions, or move it aside (mv {target} {target}.bak) and flue will start a "
              f"fresh one.")
    return Opened(_memory(), MEMORY, (notice,))


@contextlib.contextmanager
def friendly_errors(path: str) -> Iterator[None]:
    """Turn an SQLite failure in the middle of a command into one sentence naming the file."""
    try:
        yield
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise StoreError(f"The session database {path} stayed locked by another process ({exc}). "
                             "Try again in a moment.") from None
        raise StoreError(f"The session database {path} failed: {exc}. If it is damaged, move it aside "
                         f"(mv {path} {path}.bak) and flue will start a fresh one.") from None
