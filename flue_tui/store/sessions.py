"""SessionStore: the one object front ends use: find, list, name, fork and delete sessions.

Message reads and writes come from MessageLog (transcript.py). One store wraps one connection;
open a second store for another thread.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from flue_tui.core.ids import new_id
from flue_tui.store.db import Opened, StoreError, open_database, write
from flue_tui.store.images import prune
from flue_tui.store.transcript import MessageLog
from flue_tui.store.values import SESSION_COLUMNS, SessionInfo, UserPrompt, now_iso, session_from_row

MAX_NAME = 100


class UnknownSession(StoreError):
    def __init__(self, message: str, suggestions: list[str]) -> None:
        super().__init__(message)
        self.suggestions = suggestions


def _in_dirs(cwd: str | tuple[str, ...] | None) -> tuple[str, tuple[str, ...]]:
    dirs = (cwd,) if isinstance(cwd, str) else cwd
    if dirs is None:
        return "parent_id IS NULL", ()
    return f"parent_id IS NULL AND cwd IN ({', '.join('?' * len(dirs))})", dirs


def check_name(name: str) -> str:
    """Names are typed on command lines: printable, one line, not mistakable for an id or a flag."""
    name = name.strip()
    if not name:
        raise StoreError("A session name cannot be empty.")
    if len(name) > MAX_NAME:
        raise StoreError(f"A session name can have at most {MAX_NAME} characters.")
    if any(not ch.isprintable() for ch in name):
        raise StoreError("A session name must be one line of printable characters.")
    if name.startswith("-"):
        raise StoreError(f'A session name cannot start with "-": {name!r}.')
    if name.startswith("ses_"):
        raise StoreError(f'Names starting with "ses_" are reserved for session ids: {name!r}.')
    return name


class SessionStore(MessageLog):
    def __init__(self, opened: Opened) -> None:
        self.conn: sqlite3.Connection = opened.conn
        self.path = opened.path
        self.notices = opened.notices  # shown once by the caller: moved-aside or unusable files
        self.problem = opened.problem  # set when the file could not be used (then this is in memory)
        self.readonly = opened.readonly

    @classmethod
    def open(cls, path: str | os.PathLike[str] | None = None) -> SessionStore:
        return cls(open_database(path))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- lookups ----------------------------------------------------------------------------------
    def _one(self, where: str, params: tuple[Any, ...]) -> SessionInfo | None:
        row = self.conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE {where}", params).fetchone()
        return session_from_row(row) if row else None

    def get(self, session_id: str) -> SessionInfo | None:
        return self._one("id = ?", (session_id,))

    def by_name(self, name: str, cwd: str) -> SessionInfo | None:
        return self._one("cwd = ? AND name = ?", (cwd, name))

    def newest(self, cwd: str) -> SessionInfo | None:
        """What `--continue` resumes: the most recently updated conversation of this directory
        that flue recorded here (an imported one only when named: its history is a file's claim)."""
        return self._one(
            "cwd = ? AND parent_id IS NULL AND imported_at IS NULL ORDER BY updated_at DESC LIMIT 1", (cwd,)
        )

    def newer_imports(self, cwd: str, than: SessionInfo | None) -> list[SessionInfo]:
        """The imported conversations of `cwd` that `--continue` passed over (newer than `than`)."""
        where = "cwd = ? AND parent_id IS NULL AND imported_at IS NOT NULL"
        params: tuple[Any, ...] = (cwd,)
        if than is not None:
            where += " AND updated_at > ?"
            params += (than.updated_at,)
        rows = self.conn.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE {where} ORDER BY updated_at DESC LIMIT 3", params
        ).fetchall()
        return [session_from_row(r) for r in rows]

    def find(self, ref: str, cwd: str) -> SessionInfo | None:
        """A name in this cwd, an id, a unique id prefix, or a name unique across directories."""
        found = self.by_name(ref, cwd) or self.get(ref)
        if found:
            return found
        if ref.startswith("ses_") and len(ref) >= 8:
            rows = self.conn.execute(
                f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id >= ? AND id < ? LIMIT 2", (ref, ref + "\U0010ffff")
            ).fetchall()
            if len(rows) == 1:
                return session_from_row(rows[0])
        rows = self.conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE name = ? LIMIT 2", (ref,)).fetchall()
        return session_from_row(rows[0]) if len(rows) == 1 else None

    def require(self, ref: str, cwd: str) -> SessionInfo:
        found = self.find(ref, cwd)
        if found is None:
            raise self.unknown(ref, cwd)
        return found

    def unknown(self, ref: str, cwd: str) -> UnknownSession:
        import difflib  # only on this error path

        here = [r[0] for r in self.conn.execute("SELECT name FROM sessions WHERE cwd = ? AND name IS NOT NULL", (cwd,))]
        close = difflib.get_close_matches(ref, here, n=5, cutoff=0.5)
        if not close:
            anywhere = [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM sessions WHERE name IS NOT NULL")]
            close = difflib.get_close_matches(ref, anywhere, n=5, cutoff=0.6)
        message = f'No session named "{ref}" in {cwd}.'
        if close:
            message += " Did you mean: " + ", ".join(close) + "?"
        message += " See them with: flue sessions list" + ("" if close else " --all")
        return UnknownSession(message, close)

    def list_sessions(
        self, cwd: str | tuple[str, ...] | None = None, *, limit: int | None = 50, offset: int = 0
    ) -> list[SessionInfo]:
        """Conversations (not task children), newest first; `cwd=None` lists every directory, a
        tuple several (a repository and its worktree sessions' directories)."""
        where, params = _in_dirs(cwd)
        rows = self.conn.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE {where} ORDER BY updated_at DESC LIMIT ? OFFSET ?",
            (*params, limit if limit else -1, offset),
        ).fetchall()
        return [session_from_row(r) for r in rows]

    def count_sessions(self, cwd: str | tuple[str, ...] | None = None) -> int:
        where, params = _in_dirs(cwd)
        return int(self.conn.execute(f"SELECT count(*) FROM sessions WHERE {where}", params).fetchone()[0])

    def children(self, session_id: str) -> list[SessionInfo]:
        rows = self.conn.execute(
            f"SELECT {SESSION_COLUMNS} FROM sessions WHERE parent_id = ? ORDER BY created_at", (session_id,)
        ).fetchall()
        return [session_from_row(r) for r in rows]

    # -- changes ----------------------------------------------------------------------------------
    def create(
        self,
        session_id: str,
        *,
        cwd: str,
        model: str | None = None,
        name: str | None = None,
        title: str | None = None,
        parent_id: str | None = None,
        parent_tool_call_id: str | None = None,
        task_id: str | None = None,
        agent: str | None = None,
        forked_from: str | None = None,
        message_count: int = 0,
    ) -> SessionInfo:
        now = now_iso()
        try:
            with write(self.conn):
                self.conn.execute(
                    "INSERT INTO sessions (id, name, title, cwd, model, parent_id, parent_tool_call_id, task_id, "
                    "agent, forked_from, created_at, updated_at, message_count) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        session_id,
                        name,
                        title,
                        cwd,
                        model,
                        parent_id,
                        parent_tool_call_id,
                        task_id,
                        agent,
                        forked_from,
                        now,
                        now,
                        message_count,
                    ),
                )
        except sqlite3.IntegrityError:
            if name is not None and self.by_name(name, cwd):
                raise StoreError(f'A session named "{name}" already exists in {cwd}.') from None
            raise
        info = self.get(session_id)
        assert info is not None
        return info

    def set_title(self, session_id: str, title: str) -> None:
        with write(self.conn):
            self.conn.execute("UPDATE sessions SET title = ? WHERE id = ? AND title IS NULL", (title, session_id))

    def rename(self, session_id: str, new_name: str) -> SessionInfo:
        new_name = check_name(new_name)
        info = self.get(session_id)
        if info is None:
            raise StoreError(f"Session {session_id} no longer exists.")
        taken = self.by_name(new_name, info.cwd)
        if taken and taken.id != session_id:
            raise StoreError(f'A session named "{new_name}" already exists in {info.cwd} ({taken.id}).')
        with write(self.conn):
            self.conn.execute("UPDATE sessions SET name = ? WHERE id = ?", (new_name, session_id))
        renamed = self.get(session_id)
        assert renamed is not None
        return renamed

    def delete(self, session_id: str) -> int:
        """Delete a session with its task children and messages; returns how many messages went."""
        with write(self.conn):
            ids = [session_id, *self._descendants(session_id)]
            marks = ",".join("?" * len(ids))
            count = self.conn.execute(f"SELECT count(*) FROM messages WHERE session_id IN ({marks})", ids).fetchone()[0]
            self.conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))  # cascades
            prune(self.conn)  # images only this session referred to
        return int(count)

    def tree_usage(self, session_id: str) -> tuple[int, int, int, int, float]:
        """(input, output, cache read, cache write, cost) of a session and all its task children:
        the stored side of the one total a live Session keeps (Session.record_usage)."""
        row = self.conn.execute(
            "WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT s.id FROM sessions s JOIN t ON s.parent_id = t.id) "
            "SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
            "COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cost_usd), 0) "
            "FROM sessions WHERE id IN (SELECT id FROM t)",
            (session_id,),
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2]), int(row[3]), float(row[4])

    def tree_priced(self, session_id: str) -> bool:
        """False when a message of the session or its task children had no known price: the
        stored dollars are then a lower bound, and a resumed total must say "cost unknown"."""
        row = self.conn.execute(
            "WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT s.id FROM sessions s JOIN t ON s.parent_id = t.id) "
            "SELECT 1 FROM messages WHERE session_id IN (SELECT id FROM t) "
            "AND json_valid(content) AND json_extract(content, '$.usage.priced') = 0 LIMIT 1",
            (session_id,),
        ).fetchone()
        return row is None

    def _descendants(self, session_id: str) -> list[str]:
        rows = self.conn.execute(
            "WITH RECURSIVE d(id) AS (SELECT id FROM sessions WHERE parent_id = ? "
            "UNION ALL SELECT s.id FROM sessions s JOIN d ON s.parent_id = d.id) SELECT id FROM d",
            (session_id,),
        )
        return [r[0] for r in rows]

    def user_prompts(self, session_id: str) -> list[UserPrompt]:
        """The session's user messages in order, numbered from 1 (the numbers rewind and checkpoints use)."""
        rows = self.conn.execute(
            "SELECT seq, text, created_at FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq",
            (session_id,),
        ).fetchall()
        return [UserPrompt(n, int(seq), text, created) for n, (seq, text, created) in enumerate(rows, 1)]

    def fork(
        self,
        session_id: str,
        *,
        name: str | None = None,
        cwd: str | None = None,
        before_seq: int | None = None,
        title: str | None = None,
    ) -> SessionInfo:
        """A new session holding a copy of the conversation (up to, not including, message `before_seq`
        when given); the original is not touched."""
        source = self.get(session_id)
        if source is None:
            raise StoreError(f"Session {session_id} no longer exists.")
        fork_id = new_id("ses")
        limit = before_seq if before_seq is not None else 1 << 62
        with write(self.conn):
            count = self.conn.execute(
                "SELECT count(*) FROM messages WHERE session_id = ? AND seq < ?", (source.id, limit)
            ).fetchone()[0]
            self.create(
                fork_id,
                cwd=cwd or source.cwd,
                model=source.model,
                name=check_name(name) if name else None,
                title=title or f"{source.label} (fork)",
                forked_from=source.id,
                message_count=int(count),
            )
            self.conn.execute(
                "INSERT INTO messages (session_id, seq, role, text, content, tool_call_id, tool_call_ids, is_error, "
                "stop_reason, partial, input_tokens, output_tokens, cost_usd, created_at) "
                "SELECT ?, seq, role, text, content, tool_call_id, tool_call_ids, is_error, stop_reason, partial, "
                "input_tokens, output_tokens, cost_usd, created_at FROM messages WHERE session_id = ? AND seq < ? "
                "ORDER BY seq",
                (fork_id, source.id, limit),
            )
        forked = self.get(fork_id)
        assert forked is not None
        return forked
