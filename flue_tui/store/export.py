"""`flue sessions export`: a session and its task children as Markdown or JSON.

Both take `clean`, applied to every string of every stored value before anything is encoded, so a
redactor sees each secret as it was stored, not after JSON or Markdown has escaped it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from flue_tui.core.images import from_dict, mention
from flue_tui.core.messages import result_outcome
from flue_tui.core.toolcall import call_summary
from flue_tui.core.traits import OUTCOME_WORDS
from flue_tui.store.sessions import SessionStore
from flue_tui.store.values import SessionInfo, StoredMessage, local_time, now_iso

Clean = Callable[[str], str]


def _same(text: str) -> str:
    return text


def scrub(value: Any, clean: Clean) -> Any:
    """`value` with `clean` applied to every string in it, keys included."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {scrub(k, clean): scrub(v, clean) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, clean) for v in value]
    return value


def _clean_info(info: SessionInfo, clean: Clean) -> SessionInfo:
    return replace(info, **{k: clean(v) for k, v in info.to_dict().items() if isinstance(v, str)})


def _clean_message(m: StoredMessage, clean: Clean) -> StoredMessage:
    return replace(m, data=scrub(m.data, clean))


def to_json(store: SessionStore, info: SessionInfo, clean: Clean = _same) -> dict[str, Any]:
    """Everything we stored, children nested under `tasks`: the lossless export."""
    return {
        "session": _clean_info(info, clean).to_dict(),
        "messages": [
            {"seq": m.seq, "partial": m.partial, "created_at": m.created_at, **scrub(m.data, clean)}
            for m in store.iter_messages(info.id)
        ],
        "tasks": [to_json(store, child, clean) for child in store.children(info.id)],
    }


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:  # a fence longer than any run of backticks inside
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _header(info: SessionInfo, level: int) -> list[str]:
    hashes = "#" * level
    lines = [f"{hashes} {info.label}", ""]
    facts = [
        f"id `{info.id}`",
        f"directory `{info.cwd}`",
        f"model `{info.model or '?'}`",
        f"started {local_time(info.created_at)}",
        f"updated {local_time(info.updated_at)}",
    ]
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


def _message(
    m: StoredMessage, level: int, children: dict[str, SessionInfo], store: SessionStore, clean: Clean
) -> Iterator[str]:
    hashes = "#" * (level + 1)
    d = m.data
    if m.role == "user":
        shown = mention([i for raw in d.get("images") or [] if (i := from_dict(raw)) is not None])
        yield f"{hashes} User\n\n{d.get('content', '')}\n" + (f"\n{shown}\n" if shown else "")
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
            about = call_summary(str(call.get("name")), call.get("arguments"))
            yield (
                f"**{call.get('name')}**"
                + (f" · {about}" if about else "")
                + "\n\n"
                + _fence(json.dumps(call.get("arguments"), indent=2), "json")
                + "\n"
            )
            child = children.get(call.get("id"))
            if child is not None:
                yield from _session(store, child, level + 2, clean)
    elif m.role == "compaction":
        yield (
            f"{hashes} Compacted here\n\nFrom here on the model was sent this summary instead of the messages "
            f"above:\n\n" + _fence(str(d.get("summary", ""))) + "\n"
        )
    elif m.role == "toolResult":
        label = OUTCOME_WORDS[result_outcome(d)]
        yield f"{hashes} Tool {label}: {d.get('tool_name', '')}\n\n" + _fence(d.get("text", "")) + "\n"


def _session(store: SessionStore, info: SessionInfo, level: int, clean: Clean) -> Iterator[str]:
    yield from _header(_clean_info(info, clean), level)
    kids = store.children(info.id)
    by_call = {c.parent_tool_call_id: c for c in kids if c.parent_tool_call_id}
    shown: set[str | None] = set()
    for m in store.iter_messages(info.id):
        if m.role == "assistant":
            shown.update(call.get("id") for call in m.data.get("tool_calls") or [])
        # Matching children by call id uses the stored ids; what is written is the cleaned copy.
        yield from _message(
            _clean_message(m, clean),
            level,
            {clean(k): v for k, v in by_call.items() if isinstance(k, str)},
            store,
            clean,
        )
    for child in kids:
        if child.parent_tool_call_id not in shown:  # its calling message was not saved: export it anyway
            yield from _session(store, child, level + 1, clean)


def to_markdown(store: SessionStore, info: SessionInfo, clean: Clean = _same) -> str:
    return "\n".join(_session(store, info, 1, clean)).rstrip() + "\n"


def unsaved_markdown(
    session_id: str,
    cwd: str,
    model: str | None,
    title: str,
    messages: list[dict[str, Any]],
    usage: tuple[int, int, int, int, float],
    clean: Clean = _same,
) -> str:
    """A session that is not in the store (`--no-session-persistence`) in the same Markdown as a
    stored one: `messages` as `message_to_dict` gives them, `usage` as `tree_usage` gives it."""
    now = now_iso()
    info = SessionInfo(
        id=session_id,
        name=None,
        title=title,
        cwd=cwd,
        model=model,
        parent_id=None,
        parent_tool_call_id=None,
        task_id=None,
        agent=None,
        forked_from=None,
        created_at=now,
        updated_at=now,
        message_count=len(messages),
        input_tokens=usage[0],
        output_tokens=usage[1],
        cache_read_tokens=usage[2],
        cache_write_tokens=usage[3],
        cost_usd=usage[4],
    )
    lines = _header(_clean_info(info, clean), 1)
    for seq, data in enumerate(messages):
        stored = StoredMessage(session_id, seq, str(data.get("role", "")), data, False, now)
        lines += list(_message(_clean_message(stored, clean), 1, {}, store=None, clean=clean))  # type: ignore[arg-type]
    return "\n".join(lines).rstrip() + "\n"


def write_markdown(path: str, render: Callable[[Clean], str]) -> None:
    """Write an export the way `flue sessions export` does: every string redacted before it is
    encoded, then the text once more; never over an existing file."""
    import os

    from flue_tui.permissions.secrets import Redactor

    redact = Redactor(os.environ)
    text = redact(render(redact))
    try:
        with open(path, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise ValueError(f"{path} already exists; choose another file name.") from None
    except OSError as exc:
        raise ValueError(f"Cannot write {path}: {exc.strerror or exc}.") from None


def export_path(cwd: str, target: str | None, title: str) -> str:
    """/export's file: the one given (`~/` is the home, as in a shell; else relative to the
    session's directory), else a fresh name there."""
    import datetime as _dt
    import os
    import re

    if target:
        target = os.path.expanduser(target)
        return target if os.path.isabs(target) else os.path.join(cwd, target)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", title).strip("-")[:40] or "session"
    return os.path.join(cwd, f"flue-{slug}-{_dt.datetime.now():%Y%m%d-%H%M%S}.md")
