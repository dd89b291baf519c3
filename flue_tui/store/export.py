"""`flue sessions export`: a session and its task children as Markdown or JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flue_tui.store.sessions import SessionStore
from flue_tui.store.values import SessionInfo, StoredMessage, local_time


def to_json(store: SessionStore, info: SessionInfo) -> dict[str, Any]:
    """Everything we stored, children nested under `tasks`: the lossless export."""
    return {
        "session": info.to_dict(),
        "messages": [{"seq": m.seq, "partial": m.partial, "created_at": m.created_at, **m.data}
                     for m in store.iter_messages(info.id)],
        "tasks": [to_json(store, child) for child in store.children(info.id)],
    }


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:  # a fence longer than any run of backticks inside
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _header(info: SessionInfo, level: int) -> list[str]:
    hashes = "#" * level
    lines = [f"{hashes} {info.label}", ""]
    facts = [f"id `{info.id}`", f"directory `{info.cwd}`", f"model `{info.model or '?'}`",
             f"started {local_time(info.created_at)}", f"updated {local_time(info.updated_at)}"]
    if info.name and info.title:
        facts.insert(0, f"“{info.title}”")
    if info.agent:
        facts.append(f"agent `{info.agent}`")
    if info.forked_from:
        facts.append(f"forked from `{info.forked_from}`")
    if info.input_tokens or info.output_tokens:
        facts.append(f"{info.input_tokens} in / {info.output_tokens} out tokens, ${info.cost_usd:.4f}")
    lines += ["; ".join(facts), ""]
    return lines


def _message(m: StoredMessage, level: int, children: dict[str, SessionInfo],
             store: SessionStore) -> Iterator[str]:
    hashes = "#" * (level + 1)
    d = m.data
    if m.role == "user":
        yield f"{hashes} User\n\n{d.get('content', '')}\n"
    elif m.role == "assistant":
        note = " (interrupted)" if m.partial else ""
        if d.get("stop_reason") in ("error", "aborted"):
            note = f" ({d.get('stop_reason')}{': ' + d['error'] if d.get('error') else ''})"
        yield f"{hashes} Assistant{note}\n"
        if d.get("thinking"):
            yield "> " + "\n> ".join(d["thinking"].splitlines()) + "\n"
        if d.get("text"):
            yield d["text"] + "\n"
        for call in d.get("tool_calls") or []:
            yield f"**{call.get('name')}**\n\n" + _fence(json.dumps(call.get("arguments"), indent=2), "json") + "\n"
            child = children.get(call.get("id"))
            if child is not None:
                yield from _session(store, child, level + 2)
    elif m.role == "compaction":
        yield (f"{hashes} Compacted here\n\nFrom here on the model was sent this summary instead of the messages "
               f"above:\n\n" + _fence(str(d.get("summary", ""))) + "\n")
    elif m.role == "toolResult":
        label = "error" if d.get("is_error") else "result"
        yield f"{hashes} Tool {label}: {d.get('tool_name', '')}\n\n" + _fence(d.get("text", "")) + "\n"


def _session(store: SessionStore, info: SessionInfo, level: int) -> Iterator[str]:
    yield from _header(info, level)
    kids = store.children(info.id)
    by_call = {c.parent_tool_call_id: c for c in kids if c.parent_tool_call_id}
    shown: set[str | None] = set()
    for m in store.iter_messages(info.id):
        if m.role == "assistant":
            shown.update(call.get("id") for call in m.data.get("tool_calls") or [])
        yield from _message(m, level, by_call, store)
    for child in kids:
        if child.parent_tool_call_id not in shown:  # its calling message was not saved: export it anyway
            yield from _session(store, child, level + 1)


def to_markdown(store: SessionStore, info: SessionInfo) -> str:
    return "\n".join(_session(store, info, 1)).rstrip() + "\n"


_INFO_FIELDS = ("name", "title", "cwd", "model", "parent_tool_call_id", "task_id", "agent", "forked_from",
                "created_at", "updated_at", "message_count", "input_tokens", "output_tokens", "cache_read_tokens",
                "cache_write_tokens", "cost_usd")


def import_json(store: SessionStore, data: dict[str, Any], *, parent_id: str | None = None) -> tuple[SessionInfo, list[str]]:
    """Recreate an exported session (and its tasks) with its ids, messages, times and totals.

    Returns the session and notices (e.g. a name that was taken here and so was dropped)."""
    from flue_tui.store.db import StoreError, write
    from flue_tui.store.values import encode

    try:
        info = dict(data["session"])
        messages = list(data.get("messages") or [])
        session_id = str(info["id"])
    except (KeyError, TypeError) as exc:
        raise StoreError(f"Not a flue session export (missing {exc}).") from None
    if store.get(session_id) is not None:
        raise StoreError(f"Session {session_id} is already in this database; delete it first to import it again.")
    notices = []
    name = info.get("name")
    if name and store.by_name(name, info.get("cwd", "")) is not None:
        notices.append(f'A session named "{name}" already exists in {info.get("cwd")}; imported without a name.')
        name = None
    values = {k: info.get(k) for k in _INFO_FIELDS}
    values["name"] = name
    with write(store.conn):
        store.conn.execute(
            f"INSERT INTO sessions (id, parent_id, {', '.join(_INFO_FIELDS)}) "
            f"VALUES (?, ?, {', '.join('?' * len(_INFO_FIELDS))})",
            (session_id, parent_id, *[values[k] if values[k] is not None else _default(k) for k in _INFO_FIELDS]))
        for m in messages:
            body = {k: v for k, v in m.items() if k not in ("seq", "partial", "created_at")}
            enc = encode(body)
            store.conn.execute(
                "INSERT INTO messages (session_id, seq, role, text, content, tool_call_id, tool_call_ids, is_error, "
                "stop_reason, partial, input_tokens, output_tokens, cost_usd, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, m["seq"], enc.role, enc.text, enc.content, enc.tool_call_id, enc.tool_call_ids,
                 enc.is_error, enc.stop_reason, int(bool(m.get("partial"))), enc.input_tokens, enc.output_tokens,
                 enc.cost_usd, m.get("created_at") or values["created_at"]))
        for task in data.get("tasks") or []:
            _, more = import_json(store, task, parent_id=session_id)
            notices += more
    imported = store.get(session_id)
    assert imported is not None
    return imported, notices


def _default(key: str) -> Any:
    if key in ("message_count", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        return 0
    if key == "cost_usd":
        return 0.0
    if key in ("created_at", "updated_at"):
        from flue_tui.store.values import now_iso

        return now_iso()
    return "" if key == "cwd" else None
