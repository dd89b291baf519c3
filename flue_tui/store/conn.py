"""The connection primitives every store module shares: how a connection is opened (WAL, busy
timeout, foreign keys), one short write transaction, and what an SQLite error means (busy,
corrupt, read-only, full), worded for the user as StoreError."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator

BUSY_TIMEOUT_S = 5.0
# BEGIN IMMEDIATE waits BUSY_TIMEOUT_S per attempt; a writer holding the lock for longer than all
# attempts together is stuck, and then the user hears about it.
BEGIN_ATTEMPTS = 6
MEMORY = ":memory:"
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_READONLY_CODE = 8  # SQLITE_READONLY
_FULL_CODE = 13  # SQLITE_FULL


class StoreError(Exception):
    """A database problem, worded for the user."""


class NewerSchemaError(StoreError):
    pass


def _code(exc: sqlite3.Error) -> int:
    return (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def is_corrupt(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    return _code(exc) in _CORRUPT_CODES or "not a database" in str(exc) or "malformed" in str(exc)


def is_readonly(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error) and (_code(exc) == _READONLY_CODE or "readonly database" in str(exc))


def is_full(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.Error) and (_code(exc) == _FULL_CODE or "disk is full" in str(exc))


def is_busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and (
        _code(exc) in _BUSY_CODES or "locked" in str(exc) or "busy" in str(exc)
    )


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
