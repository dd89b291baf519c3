"""/export: the conversation as a Markdown file a person can read.

Like `flue sessions export`, it never writes the value of a `*_KEY`/`*_TOKEN`/`*_SECRET` variable:
each string is redacted before it is encoded (tool arguments become JSON here), then the text."""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from collections.abc import Callable

from flue_tui.core.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from flue_tui.core.toolcall import call_summary


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", text)), default=2)
    tick = "`" * (longest + 1)
    return f"{tick}\n{text.rstrip()}\n{tick}"


def to_markdown(messages: list[Message], title: str, model: str,
                clean: Callable[[str], str] = lambda text: text) -> str:
    from flue_tui.store.export import scrub

    out = [f"# {clean(title)}", "", f"*Model: {model} · exported {_dt.datetime.now():%Y-%m-%d %H:%M}*", ""]
    for m in messages:
        if isinstance(m, UserMessage):
            out += ["## User", "", clean(m.content).rstrip(), ""]
        elif isinstance(m, AssistantMessage):
            if not (m.text or m.tool_calls):
                continue
            out += ["## Assistant", ""]
            if m.text:
                out += [clean(m.text).rstrip(), ""]
            for call in m.tool_calls:
                about = clean(call_summary(call.name, call.arguments))
                out += [f"**Tool call** `{call.name}`" + (f" · {about}" if about else ""), "", _fence(json.dumps(scrub(call.arguments, clean), indent=2,
                                                                               ensure_ascii=False)), ""]
            if m.stop_reason == "aborted":
                out += ["*(interrupted)*", ""]
        elif isinstance(m, ToolResultMessage):
            label = "Tool error" if m.is_error else "Tool result"
            out += [f"**{label}** `{m.tool_name}`", "", _fence(clean(m.text)), ""]
    return clean("\n".join(out).rstrip() + "\n")


def export_markdown(messages: list[Message], cwd: str, target: str | None, title: str, model: str) -> str:
    if target:
        path = target if os.path.isabs(target) else os.path.join(cwd, target)
    else:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", title).strip("-")[:40] or "session"
        path = os.path.join(cwd, f"flue-{slug}-{_dt.datetime.now():%Y%m%d-%H%M%S}.md")
    from flue_tui.permissions.secrets import Redactor

    with open(path, "w", encoding="utf-8") as f:
        f.write(to_markdown(messages, title, model, Redactor(os.environ)))
    return path
