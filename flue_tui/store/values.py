"""What the store hands out (frozen values) and how a message dict maps onto a `messages` row."""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from flue_tui.store.images import Blob, strip

if TYPE_CHECKING:
    from flue_tui.core.messages import Message

# The big text of each role lives in its own column (indexed by FTS5, never duplicated in the
# JSON), so search needs no JSON functions and a resume parses only the small remainder.
TEXT_KEY = {"user": "content", "assistant": "text", "toolResult": "text", "compaction": "summary"}

SESSION_COLUMNS = (
    "id, name, title, cwd, model, parent_id, parent_tool_call_id, task_id, agent, forked_from, "
    "created_at, updated_at, message_count, input_tokens, output_tokens, cache_read_tokens, "
    "cache_write_tokens, cost_usd"
)


def now_iso() -> str:
    """UTC, millisecond precision, `Z` suffix: sorts as text and reads back with fromisoformat."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def local_time(iso: str | None) -> str:
    """`2026-08-04 14:03` in the user's timezone, for listings."""
    if not iso:
        return ""
    try:
        when = _dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True, slots=True)
class UserPrompt:
    """The session's `number`th user message (from 1): what a checkpoint and a rewind point name."""

    number: int
    seq: int
    text: str
    created_at: str


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One row of `sessions`: enough for a picker, a listing or a header."""

    id: str
    name: str | None
    title: str | None
    cwd: str
    model: str | None
    parent_id: str | None
    parent_tool_call_id: str | None
    task_id: str | None
    agent: str | None
    forked_from: str | None
    created_at: str
    updated_at: str
    message_count: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float

    @property
    def label(self) -> str:
        """What a person calls it: its name, else its title, else its id."""
        return self.name or self.title or self.id

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """A message as stored: its place in the session and whether it was cut off mid-stream."""

    session_id: str
    seq: int
    role: str
    data: dict[str, Any]
    partial: bool
    created_at: str

    @property
    def text(self) -> str:
        key = TEXT_KEY.get(self.role)
        return str(self.data.get(key, "")) if key else ""

    def to_message(self) -> Message:
        from flue_tui.core.messages import message_from_dict  # not needed by listings: keep them quick

        return message_from_dict(self.data)


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_id: str
    session_label: str
    root_label: str | None  # the parent conversation's label when the hit is inside a task
    cwd: str
    seq: int
    role: str
    created_at: str
    snippet: str


@dataclass(frozen=True, slots=True)
class EncodedMessage:
    """Column values for one `messages` row."""

    role: str
    text: str
    content: str
    tool_call_id: str | None
    tool_call_ids: str | None
    is_error: int | None
    stop_reason: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    images: tuple[Blob, ...] = ()  # kept once in the `images` table (store/images.py), not in `content`


def encode(message: dict[str, Any]) -> EncodedMessage:
    role = str(message.get("role", ""))
    message, blobs = strip(message)
    rest = dict(message)
    key = TEXT_KEY.get(role)
    text = str(rest.pop(key, "") or "") if key else ""
    calls = rest.get("tool_calls") or []
    usage = rest.get("usage") or {}
    return EncodedMessage(
        role=role,
        text=text,
        content=json.dumps(rest, ensure_ascii=False, separators=(",", ":")),
        tool_call_id=rest.get("tool_call_id"),
        tool_call_ids=json.dumps([c.get("id") for c in calls]) if calls else None,
        is_error=int(bool(rest["is_error"])) if "is_error" in rest else None,
        stop_reason=rest.get("stop_reason"),
        input_tokens=usage.get("input"),
        output_tokens=usage.get("output"),
        cost_usd=usage.get("cost"),
        images=blobs,
    )


def decode(role: str, text: str, content: str) -> dict[str, Any]:
    data = json.loads(content)
    key = TEXT_KEY.get(role)
    if key:
        data[key] = text
    return data


def _number(value: Any, kind: type) -> Any:
    # SQLite keeps whatever a column is given: a row imported by an older flue may hold "lots" for a
    # cost. Listings and exports must still work, so what is not a number reads as 0.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return kind(value)
    return kind(0)


def session_from_row(row: tuple[Any, ...]) -> SessionInfo:
    counts = tuple(_number(v, int) for v in row[12:17])
    # pyright cannot count a starred slice; the row's 12 leading columns are SessionInfo's first fields.
    return SessionInfo(*row[:12], *counts, _number(row[17], float))  # pyright: ignore[reportCallIssue]
