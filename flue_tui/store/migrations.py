"""The schema, as an ordered list of small migrations (sqlite-utils' `Migrations`, set "flue").

A shipped migration is never edited: change the schema by appending a function to MIGRATIONS.
sqlite-utils is imported only when a migration is due, so commands that just read stay quick.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flue_tui.store.conn import MEMORY, NewerSchemaError, write
from flue_tui.store.dbfile import stamp

if TYPE_CHECKING:
    from sqlite_utils import Database

MIGRATION_SET = "flue"
MIGRATIONS_TABLE = "_sqlite_migrations"  # sqlite-utils' table


def m001_sessions_and_messages(db: Database) -> None:
    # Plain DDL: sqlite-utils' create() cannot say ON DELETE CASCADE or partial indexes.
    db.execute("""
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            name TEXT,
            title TEXT,
            cwd TEXT NOT NULL,
            model TEXT,
            parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
            parent_tool_call_id TEXT,
            task_id TEXT,
            agent TEXT,
            forked_from TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            message_count INTEGER NOT NULL DEFAULT 0,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_tokens INTEGER NOT NULL DEFAULT 0,
            cache_write_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0
        )""")
    # Names are unique per directory; task children and unnamed sessions have none.
    db.execute("CREATE UNIQUE INDEX sessions_cwd_name ON sessions(cwd, name) WHERE name IS NOT NULL")
    db.execute("CREATE INDEX sessions_cwd_updated ON sessions(cwd, updated_at)")  # newest in this cwd
    db.execute("CREATE INDEX sessions_updated ON sessions(updated_at)")  # newest anywhere (--all)
    db.execute("CREATE INDEX sessions_parent ON sessions(parent_id)")
    db.execute("""
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL,
            tool_call_id TEXT,
            tool_call_ids TEXT,
            is_error INTEGER,
            stop_reason TEXT,
            partial INTEGER NOT NULL DEFAULT 0,
            input_tokens INTEGER,
            output_tokens INTEGER,
            cost_usd REAL,
            created_at TEXT NOT NULL
        )""")
    db.execute("CREATE UNIQUE INDEX messages_session_seq ON messages(session_id, seq)")  # order, tail, paging


def m002_message_search(db: Database) -> None:
    db.table("messages").enable_fts(["text"], create_triggers=True)


def m003_imported_sessions(db: Database) -> None:
    # When `flue sessions import` wrote the session (NULL: flue recorded it here). A file from
    # anywhere may claim any cwd and time: `--continue` never picks such a session by itself.
    db.execute("ALTER TABLE sessions ADD COLUMN imported_at TEXT")


def m004_images(db: Database) -> None:
    # Attached images, once per content (store/images.py); messages refer to them by sha256.
    db.execute("CREATE TABLE images (sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, data BLOB NOT NULL)")


MIGRATIONS: list[Callable[[Any], None]] = [
    m001_sessions_and_messages,
    m002_message_search,
    m003_imported_sessions,
    m004_images,
]


def migration_set() -> Any:
    from sqlite_utils import Migrations

    migrations = Migrations(MIGRATION_SET)
    for fn in MIGRATIONS:
        migrations(name=fn.__name__)(fn)
    return migrations


def applied_names(conn: sqlite3.Connection) -> list[str]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)
    ).fetchone()
    if not exists:
        return []
    rows = conn.execute(f"SELECT name FROM {MIGRATIONS_TABLE} WHERE migration_set = ? ORDER BY rowid", (MIGRATION_SET,))
    return [r[0] for r in rows]


def backup(conn: sqlite3.Connection, path: str) -> str:
    """`VACUUM INTO` a private copy next to the file, before a migration touches it."""
    target = f"{path}.backup-{stamp()}-{os.getpid()}"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # VACUUM INTO accepts an empty file
    os.close(fd)
    conn.execute("VACUUM INTO ?", (target,))
    return target


def migrate(conn: sqlite3.Connection, path: str) -> str | None:
    """Bring the schema up to date; returns the backup's path when an existing file was migrated."""
    applied = applied_names(conn)
    known = [fn.__name__ for fn in MIGRATIONS]
    newer = [name for name in applied if name not in known]
    if newer:
        raise NewerSchemaError(
            f"The session database {path} was written by a newer version of flue (it has schema "
            f"migration {newer[-1]}, this flue knows up to {known[-1]}). It was not changed. Upgrade "
            f"flue, or use another database with --db PATH."
        )
    if len(applied) == len(known):
        return None
    saved = backup(conn, path) if applied and path != MEMORY else None
    from sqlite_utils import Database

    db = Database(conn, recursive_triggers=False, execute_plugins=False)
    # Under the write lock sqlite-utils re-reads what is applied, so two processes opening a
    # fresh file at once apply each migration exactly once.
    with write(conn):
        migration_set().apply(db)
    return saved
