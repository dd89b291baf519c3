"""The `messages` side of the store: append, checkpoint, read back in pages, and search."""

from __future__ import annotations

import gc
import json
import re
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from flue_tui.store.db import StoreError, write
from flue_tui.store.images import fill, keep
from flue_tui.store.values import TEXT_KEY, SearchHit, StoredMessage, decode, encode, now_iso

if TYPE_CHECKING:
    from flue_tui.core.messages import Message

_MESSAGE_COLUMNS = "session_id, seq, role, text, content, partial, created_at"
# Highlight markers for snippets: control characters never found in text, swapped for styling later.
MARK_START, MARK_END = "\x02", "\x03"


def _stored(conn: sqlite3.Connection, row: tuple[Any, ...]) -> StoredMessage:
    session_id, seq, role, text, content, partial, created_at = row
    data = fill(conn, decode(role, text, content))
    return StoredMessage(session_id, seq, role, data, bool(partial), created_at)


def fts_query(text: str) -> str:
    """Each word as a quoted phrase (all must match), so punctuation never trips FTS5's syntax."""
    words = [w for w in re.split(r"\s+", text.strip()) if w]
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


class MessageLog:
    conn: sqlite3.Connection

    # -- writes (the recorder's) ------------------------------------------------------------------
    def append(self, session_id: str, message: dict[str, Any], *, partial: bool = False) -> int:
        """Add a message at the end of a session; returns its row id (for a later `replace`)."""
        enc = encode(message)
        now = now_iso()
        with write(self.conn):
            keep(self.conn, enc.images)
            # The seq is taken under the write lock, so two writers to one session never collide.
            cur = self.conn.execute(
                "INSERT INTO messages (session_id, seq, role, text, content, tool_call_id, tool_call_ids, "
                "is_error, stop_reason, partial, input_tokens, output_tokens, cost_usd, created_at) "
                "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? "
                "FROM messages WHERE session_id = ?",
                (
                    session_id,
                    enc.role,
                    enc.text,
                    enc.content,
                    enc.tool_call_id,
                    enc.tool_call_ids,
                    enc.is_error,
                    enc.stop_reason,
                    int(partial),
                    enc.input_tokens,
                    enc.output_tokens,
                    enc.cost_usd,
                    now,
                    session_id,
                ),
            )
            self._touch(session_id, message, now, added=1)
            return int(cur.lastrowid or 0)

    def replace(self, row_id: int, session_id: str, message: dict[str, Any], *, partial: bool = False) -> None:
        """Overwrite a checkpointed row: a newer checkpoint, or the finished message."""
        enc = encode(message)
        now = now_iso()
        with write(self.conn):
            keep(self.conn, enc.images)
            cur = self.conn.execute(
                "UPDATE messages SET role = ?, text = ?, content = ?, tool_call_id = ?, tool_call_ids = ?, "
                "is_error = ?, stop_reason = ?, partial = ?, input_tokens = ?, output_tokens = ?, cost_usd = ? "
                "WHERE id = ? AND session_id = ?",
                (
                    enc.role,
                    enc.text,
                    enc.content,
                    enc.tool_call_id,
                    enc.tool_call_ids,
                    enc.is_error,
                    enc.stop_reason,
                    int(partial),
                    enc.input_tokens,
                    enc.output_tokens,
                    enc.cost_usd,
                    row_id,
                    session_id,
                ),
            )
            if cur.rowcount == 0:  # the row went away (session deleted meanwhile): keep the message
                self.append(session_id, message, partial=partial)
                return
            self._touch(session_id, message, now, added=0)

    def _touch(self, session_id: str, message: dict[str, Any], now: str, *, added: int) -> None:
        usage = message.get("usage") or {}
        self.conn.execute(
            "UPDATE sessions SET updated_at = ?, message_count = message_count + ?, "
            "input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
            "cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?, "
            "cost_usd = cost_usd + ?, model = COALESCE(NULLIF(?, ''), model) WHERE id = ?",
            (
                now,
                added,
                usage.get("input", 0),
                usage.get("output", 0),
                usage.get("cache_read", 0),
                usage.get("cache_write", 0),
                usage.get("cost", 0.0),
                message.get("model"),
                session_id,
            ),
        )

    # -- reads ------------------------------------------------------------------------------------
    def iter_messages(self, session_id: str) -> Iterator[StoredMessage]:
        """Every message in order, streamed from the cursor (never the whole session in memory twice)."""
        cur = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        for row in cur:
            yield _stored(self.conn, row)

    def tail(self, session_id: str, n: int = 50) -> list[StoredMessage]:
        """The last `n` messages, oldest first: the screenful a resumed TUI shows."""
        rows = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?", (session_id, n)
        ).fetchall()
        return [_stored(self.conn, r) for r in reversed(rows)]

    def before(self, session_id: str, seq: int, n: int = 50) -> list[StoredMessage]:
        """The `n` messages just before `seq`, oldest first: paging back through history."""
        rows = self.conn.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            (session_id, seq, n),
        ).fetchall()
        return [_stored(self.conn, r) for r in reversed(rows)]

    def load_context(self, session_id: str) -> list[Message]:
        """The model context of a session, with cut-off messages and unanswered calls closed."""
        from flue_tui.store.resume import rebuild_context

        # The cyclic GC would rescan the growing heap of new, acyclic objects over and over: on a
        # 20,000-message session that was 40% of the time (bench/sessions.py).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            rows = self.conn.execute(
                "SELECT role, text, content, partial FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
            # One json.loads over all the (small) JSON parts: per-call overhead dominated 20,000 calls.
            datas = json.loads("[" + ",".join(r[2] for r in rows) + "]")
            parts = []
            for (role, text, _, partial), data in zip(rows, datas, strict=True):
                key = TEXT_KEY.get(role)
                if key:
                    data[key] = text
                parts.append((role, fill(self.conn, data), bool(partial)))
            del rows, datas
            return rebuild_context(parts)
        finally:
            if was_enabled:
                gc.enable()

    def search(self, query: str, *, cwd: str | None = None, limit: int = 20) -> list[SearchHit]:
        """Messages matching every word of `query`, newest first, with a highlighted snippet."""
        match = fts_query(query)
        if not match:
            raise StoreError("Search for what? Give at least one word.")
        where = "AND s.cwd = ?" if cwd is not None else ""
        params: tuple[Any, ...] = (MARK_START, MARK_END, match, *((cwd,) if cwd is not None else ()), limit)
        # Newest first by rowid lets FTS5 stop after `limit` hits; ranking would score every match.
        rows = self.conn.execute(
            "SELECT m.session_id, COALESCE(s.name, s.title, s.id), COALESCE(p.name, p.title, p.id), s.cwd, "
            "m.seq, m.role, m.created_at, snippet(messages_fts, 0, ?, ?, '…', 16) "
            "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
            "JOIN sessions s ON s.id = m.session_id LEFT JOIN sessions p ON p.id = s.parent_id "
            f"WHERE messages_fts MATCH ? {where} ORDER BY messages_fts.rowid DESC LIMIT ?",
            params,
        ).fetchall()
        return [SearchHit(r[0], r[1], r[2], r[3], r[4], r[5], r[6], " ".join(r[7].split())) for r in rows]
