"""`flue sessions import`: check a whole export first, then write it in one transaction.

An export is a file from anywhere. Every value that `show`, `export` or a resume will later read
is checked here against the shape flue writes (types, required keys, unique `seq`), so a bad file
is refused with one sentence naming the place, and nothing of it is written.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from flue_tui.core.messages import ToolCall, Usage
from flue_tui.core.traits import KINDS, OUTCOMES
from flue_tui.store.db import StoreError, write
from flue_tui.store.images import keep
from flue_tui.store.sessions import SessionStore, check_name
from flue_tui.store.values import SessionInfo, encode, now_iso


class ImportProblem(StoreError):
    pass


class AlreadyImported(StoreError):
    """The export's session is in the database already (imported before, or never moved):
    `flue sessions import` skips it. Only the session itself counts; a file whose task id
    collides with another session is an ImportProblem's kind of conflict (a StoreError)."""

    def __init__(self, session_id: str, label: str) -> None:
        self.session_id = session_id
        self.label = label
        super().__init__(f"Session {session_id} is already in this database.")


Check = Callable[[Any], str | None]  # None when fine, else what is wrong ("must be a number")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be text, not {_show(value)}"


SQLITE_MAX_INT = 2**63 - 1  # SQLite's INTEGER is 64-bit: a bigger number cannot be stored


def _count(value: Any) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= SQLITE_MAX_INT
    return None if ok else f"must be a whole number from 0 to {SQLITE_MAX_INT}, not {_show(value)}"


def _money(value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
    return None if ok else f"must be a number of 0 or more, not {_show(value)}"


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, not {_show(value)}"


def _object(value: Any) -> str | None:
    return None if isinstance(value, dict) else f"must be an object, not {_show(value)}"


def _texts(value: Any) -> str | None:
    ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    return None if ok else "must be a list of texts"


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _one_of(*allowed: str) -> Check:
    return lambda value: None if value in allowed else f"must be one of {', '.join(allowed)}, not {_show(value)}"


_USAGE = {"input": _count, "output": _count, "cache_read": _count, "cache_write": _count, "cost": _money}
_CALL = {"id": _text, "name": _text, "arguments": _object, "raw_arguments": _text, "refusal": _optional(_text)}
# Objects rebuilt with **kwargs on resume accept exactly their dataclass's fields (the checks above
# type those whose wrong type would crash a reader); other objects may carry extra keys.
_USAGE_KEYS = frozenset(f.name for f in fields(Usage))
_CALL_KEYS = frozenset(f.name for f in fields(ToolCall))


def _keys(
    value: Any, checks: dict[str, Check], required: tuple[str, ...], *, closed: frozenset[str] | None
) -> str | None:
    """Check an object's keys; a `closed` object allows only the keys named there."""
    if not isinstance(value, dict):
        return f"must be an object, not {_show(value)}"
    for key in required:
        if key not in value:
            return f'has no "{key}"'
    for key, item in value.items():
        check = checks.get(key)
        if check is None:
            if closed is not None and key not in closed:
                return f'has an unknown key "{key}"'
            continue
        wrong = check(item)
        if wrong:
            return f'"{key}" {wrong}'
    return None


def _usage(value: Any) -> str | None:
    return _keys(value, _USAGE, (), closed=_USAGE_KEYS)


def _calls(value: Any) -> str | None:
    if not isinstance(value, list):
        return f"must be a list, not {_show(value)}"
    for n, call in enumerate(value, 1):
        wrong = _keys(call, _CALL, ("id", "name", "arguments"), closed=_CALL_KEYS)
        if wrong:
            return f"call {n} {wrong}"
    return None


_ROLES: dict[str, tuple[dict[str, Check], tuple[str, ...]]] = {
    "user": ({"content": _text, "display": _optional(_text), "shell": _optional(_object)}, ("content",)),
    "assistant": (
        {
            "text": _text,
            "thinking": _text,
            "tool_calls": _calls,
            "error": _optional(_text),
            "stop_reason": _one_of("stop", "tool_calls", "length", "error", "aborted"),
            "model": _text,
            "usage": _optional(_usage),
        },
        (),
    ),
    "toolResult": (
        {
            "tool_call_id": _text,
            "tool_name": _text,
            "text": _text,
            "is_error": _flag,
            "details": _optional(_object),
            "terminate": _flag,
            "duration_ms": _optional(_count),
            "outcome": _optional(_one_of(*OUTCOMES)),
            "kind": _optional(_one_of(*KINDS)),
        },
        ("tool_call_id", "tool_name", "text"),
    ),
    "compaction": (
        {
            "summary": _text,
            "kept": _count,
            "tokens_before": _count,
            "read_files": _texts,
            "modified_files": _texts,
            "request": _optional(_text),
            "usage": _optional(_usage),
        },
        ("summary", "kept"),
    ),
}
_PLACE = {"seq": _count, "partial": _flag, "created_at": _optional(_text)}

_INFO: dict[str, Check] = {
    "id": _text,
    "name": _optional(_text),
    "title": _optional(_text),
    "cwd": _text,
    "model": _optional(_text),
    "parent_tool_call_id": _optional(_text),
    "task_id": _optional(_text),
    "agent": _optional(_text),
    "forked_from": _optional(_text),
    "created_at": _optional(_text),
    "updated_at": _optional(_text),
    "message_count": _optional(_count),
    "input_tokens": _optional(_count),
    "output_tokens": _optional(_count),
    "cache_read_tokens": _optional(_count),
    "cache_write_tokens": _optional(_count),
    "cost_usd": _optional(_money),
}
_COPIED = (
    "name",
    "title",
    "cwd",
    "model",
    "parent_tool_call_id",
    "task_id",
    "agent",
    "forked_from",
    "created_at",
    "updated_at",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost_usd",
)


@dataclass(slots=True)
class _Planned:
    info: dict[str, Any]
    messages: list[dict[str, Any]]
    tasks: list[_Planned] = field(default_factory=list)


def _plan(data: Any, where: str, seen: set[str], parent: str | None = None) -> _Planned:
    def fail(what: str) -> ImportProblem:
        return ImportProblem(f"{where} {what}")

    if not isinstance(data, dict) or not isinstance(data.get("session"), dict):
        raise fail('is not a flue session export (it has no "session" object)')
    info = data["session"]
    wrong = _keys(info, _INFO, ("id",), closed=None)
    sid = info.get("id")
    here = f"session {sid}:" if parent is None else f"task session {sid} of {parent}:"
    if wrong and isinstance(sid, str) and sid.isprintable() and 0 < len(sid) <= 200:
        raise ImportProblem(f"{here} {wrong}")  # name the session the user can find in the file
    if wrong:
        raise ImportProblem(f"{where}: its session {wrong}")
    if not sid.strip() or not sid.isprintable() or len(sid) > 200:
        raise fail(f"has an unusable session id {_show(sid)}")
    if sid in seen:
        raise fail(f"holds session {sid} twice")
    seen.add(sid)
    if info.get("name") is not None:
        try:
            check_name(info["name"])
        except StoreError as exc:
            raise fail(f"names session {sid} badly: {exc}") from None
    messages, tasks = data.get("messages", []), data.get("tasks", [])
    if not isinstance(messages, list) or not isinstance(tasks, list):
        raise ImportProblem(f'{here} "messages" and "tasks" must be lists')
    seqs: set[int] = set()
    for n, message in enumerate(messages, 1):
        wrong = _message(message)
        if wrong:
            raise ImportProblem(f"{here} message {n} {wrong}")
        if message["seq"] in seqs:
            raise ImportProblem(f"{here} message {n} repeats seq {message['seq']} (each seq may appear once)")
        seqs.add(message["seq"])
    return _Planned(info, messages, [_plan(t, f"task {k} of session {sid}", seen, sid) for k, t in enumerate(tasks, 1)])


def _message(message: Any) -> str | None:
    if not isinstance(message, dict):
        return f"is not an object ({_show(message)})"
    wrong = _keys(message, _PLACE, ("seq",), closed=None)
    if wrong:
        return wrong
    if message.get("role") not in _ROLES:
        return f"has an unknown role {_show(message.get('role'))}"
    checks, required = _ROLES[message["role"]]
    return _keys({k: v for k, v in message.items() if k not in _PLACE and k != "role"}, checks, required, closed=None)


def import_json(store: SessionStore, data: Any) -> tuple[SessionInfo, list[str]]:
    """Recreate an exported session (and its tasks) with its ids, messages, times and totals.
    Everything is checked before anything is written (ImportProblem says what and where).
    Returns the session and notices."""
    plan = _plan(data, "the file", set())
    present = store.get(str(plan.info["id"]))
    if present is not None:
        raise AlreadyImported(present.id, present.label)
    taken = [sid for sid in _ids(plan) if store.get(sid) is not None]
    if taken:
        raise ImportProblem(f"its task session {taken[0]} is already in this database (delete that session first)")
    notices: list[str] = []
    with write(store.conn):
        _write(store, plan, None, notices)
    imported = store.get(str(plan.info["id"]))
    assert imported is not None
    return imported, notices


def _ids(plan: _Planned) -> list[str]:
    return [plan.info["id"], *(sid for task in plan.tasks for sid in _ids(task))]


def _write(store: SessionStore, plan: _Planned, parent_id: str | None, notices: list[str]) -> None:
    info = plan.info
    values = {k: info.get(k) for k in _COPIED}
    name = values["name"]
    if name and store.by_name(name, values["cwd"] or "") is not None:
        notices.append(f'A session named "{name}" already exists in {values["cwd"]}; imported without a name.')
        values["name"] = None
    stamp = values["created_at"] or now_iso()
    defaults = {
        "cwd": "",
        "created_at": stamp,
        "updated_at": values["updated_at"] or stamp,
        "input_tokens": 0,
        "output_tokens": 0,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "cost_usd": 0.0,
    }
    row = {k: v if v is not None else defaults.get(k) for k, v in values.items()}
    row["message_count"] = len(plan.messages)  # what is really there, whatever the file claimed
    row["imported_at"] = now_iso()  # `--continue` skips it: its history is the file's word, not yours
    columns = list(row)
    store.conn.execute(
        f"INSERT INTO sessions (id, parent_id, {', '.join(columns)}) VALUES (?, ?, {', '.join('?' * len(columns))})",
        (info["id"], parent_id, *row.values()),
    )
    for m in plan.messages:
        enc = encode({k: v for k, v in m.items() if k not in _PLACE})
        keep(store.conn, enc.images)
        store.conn.execute(
            "INSERT INTO messages (session_id, seq, role, text, content, tool_call_id, tool_call_ids, is_error, "
            "stop_reason, partial, input_tokens, output_tokens, cost_usd, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                info["id"],
                m["seq"],
                enc.role,
                enc.text,
                enc.content,
                enc.tool_call_id,
                enc.tool_call_ids,
                enc.is_error,
                enc.stop_reason,
                int(bool(m.get("partial"))),
                enc.input_tokens,
                enc.output_tokens,
                enc.cost_usd,
                m.get("created_at") or stamp,
            ),
        )
    for task in plan.tasks:
        _write(store, task, info["id"], notices)
