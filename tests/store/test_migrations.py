"""Each migration on an in-memory database; versions; backups; file mode."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest
from sqlite_utils import Database

from flue_tui.store.db import NewerSchemaError, connect, open_database
from flue_tui.store.migrations import (
    MIGRATIONS,
    applied_names,
    m001_sessions_and_messages,
    m002_message_search,
    migrate,
)


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}


def test_m001_creates_sessions_and_messages_with_indexes():
    db = Database(memory=True)
    m001_sessions_and_messages(db)
    assert {"sessions", "messages"} <= set(db.table_names())
    assert set(db["messages"].columns_dict) >= {
        "session_id",
        "seq",
        "role",
        "text",
        "content",
        "tool_call_id",
        "tool_call_ids",
        "partial",
        "input_tokens",
        "output_tokens",
    }
    indexes = {i.name: i for i in db["sessions"].indexes}
    assert indexes["sessions_cwd_name"].unique and "sessions_cwd_updated" in indexes
    assert {i.name for i in db["messages"].indexes} >= {"messages_session_seq"}
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("INSERT INTO sessions (id, cwd, name, created_at, updated_at) VALUES ('a', '/x', 'n', '', '')")
    with pytest.raises(sqlite3.IntegrityError):  # names are unique per cwd ...
        db.execute("INSERT INTO sessions (id, cwd, name, created_at, updated_at) VALUES ('b', '/x', 'n', '', '')")
    # ... but not across directories, and unnamed sessions are unlimited
    db.execute("INSERT INTO sessions (id, cwd, name, created_at, updated_at) VALUES ('c', '/y', 'n', '', '')")
    db.execute("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('d', '/x', '', '')")
    db.execute("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('e', '/x', '', '')")
    db.execute("INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('a', 1, 'user', '{}', '')")
    db.execute("DELETE FROM sessions WHERE id = 'a'")
    assert db.execute("SELECT count(*) FROM messages").fetchone()[0] == 0  # cascade


def test_m002_indexes_message_text_and_follows_changes():
    db = Database(memory=True)
    m001_sessions_and_messages(db)
    db.execute("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('a', '/x', '', '')")
    db.execute(
        "INSERT INTO messages (session_id, seq, role, text, content, created_at) "
        "VALUES ('a', 1, 'user', 'before the index', '{}', '')"
    )
    m002_message_search(db)
    assert "messages_fts" in db.table_names()
    db.execute(
        "INSERT INTO messages (session_id, seq, role, text, content, created_at) "
        "VALUES ('a', 2, 'user', 'zebra crossing', '{}', '')"
    )
    assert [r["rowid"] for r in db["messages"].search("before")] == [1]
    assert [r["rowid"] for r in db["messages"].search("zebra")] == [2]
    db.execute("UPDATE messages SET text = 'giraffe' WHERE seq = 2")
    assert list(db["messages"].search("zebra")) == [] and len(list(db["messages"].search("giraffe"))) == 1


def test_migrate_applies_all_in_order_once():
    conn = connect(":memory:")
    assert migrate(conn, ":memory:") is None
    assert applied_names(conn) == [fn.__name__ for fn in MIGRATIONS]
    migrate(conn, ":memory:")  # idempotent
    assert applied_names(conn) == [fn.__name__ for fn in MIGRATIONS]


def test_new_file_is_private_and_wal(db_path):
    opened = open_database(db_path)
    assert stat.S_IMODE(os.stat(db_path).st_mode) == 0o600
    assert opened.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert opened.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert opened.notices == ()


def test_existing_file_is_backed_up_before_a_migration(db_path):
    conn = connect(str(db_path))
    db = Database(conn, execute_plugins=False)
    from flue_tui.store.migrations import migration_set

    migration_set().apply(db, stop_before=m002_message_search.__name__)  # an older flue's file
    conn.execute("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('old', '/x', '', '')")
    conn.close()
    opened = open_database(db_path)
    assert applied_names(opened.conn) == [fn.__name__ for fn in MIGRATIONS]
    backups = [p for p in db_path.parent.iterdir() if ".backup-" in p.name]
    assert len(backups) == 1 and stat.S_IMODE(os.stat(backups[0]).st_mode) == 0o600
    copy = sqlite3.connect(backups[0])
    assert copy.execute("SELECT id FROM sessions").fetchall() == [("old",)]
    assert "messages_fts" not in tables(copy)  # the backup is the file as it was before


def test_a_newer_schema_is_refused_and_left_unchanged(db_path):
    open_database(db_path).conn.close()
    conn = sqlite3.connect(db_path)
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('flue', 'm099_from_the_future', 'x')"
    )
    conn.commit()
    conn.close()
    before = db_path.read_bytes()
    with pytest.raises(NewerSchemaError) as err:
        open_database(db_path)
    assert str(db_path) in str(err.value) and "newer version of flue" in str(err.value)
    assert "m099_from_the_future" in str(err.value)
    assert db_path.read_bytes() == before
    assert not [p for p in db_path.parent.iterdir() if ".backup-" in p.name or ".corrupt-" in p.name]
