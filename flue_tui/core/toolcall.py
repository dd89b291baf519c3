"""What a tool call is about, in a few words: the one description every surface shows.

The app, inline mode, `-p --verbose`, `--plain`, `flue sessions show` and both Markdown exports
(the app's `/export` and `flue sessions export`, which sits in store/, below ui/) all name a call
with `call_summary`, so `grep` keeps its pattern everywhere. Pure string work on the call's
arguments, which come from the model or the store: anything not a string is skipped, never shown raw.
"""

from __future__ import annotations

import os


def short_path(path: str, cwd: str) -> str:
    if cwd and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:
            return path
        if not rel.startswith(".."):
            return rel
    return path


def one_line(text: str, limit: int = 200) -> str:
    first, _, rest = text.strip().partition("\n")
    if rest.strip():
        first += " …"
    return first if len(first) <= limit else first[: limit - 1] + "…"


def title_from(prompt: str, width: int = 60) -> str:
    """A session's title: its first prompt on one line (the store's, the status bar's)."""
    line = " ".join(prompt.split())
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def call_summary(name: str, args: object, cwd: str = "") -> str:
    """The argument that says what the call is about: path, command, pattern, agent."""
    a = args if isinstance(args, dict) else {}

    def s(key: str) -> str:
        value = a.get(key)
        return value if isinstance(value, str) else ""

    if name in ("read", "write", "edit"):
        text = short_path(s("path"), cwd)
        offset, limit = a.get("offset"), a.get("limit")
        if name == "read" and isinstance(offset, int | None) and isinstance(limit, int | None) and (offset or limit):
            text += f":{offset or 1}" + (f"+{limit}" if limit else "")
        return text
    if name == "bash":
        return one_line(s("command"))
    if name in ("grep", "glob"):
        text = one_line(s("pattern"))
        if s("path"):
            text += f"  in {short_path(s('path'), cwd)}"
        if s("include"):
            text += f"  ({s('include')})"
        return text
    if name == "todo_write" and isinstance(a.get("todos"), list):
        todos = [t for t in a["todos"] if isinstance(t, dict)]
        done = sum(t.get("status") == "completed" for t in todos)
        return f"{len(todos)} todos, {done} done"
    if name == "task":
        return " · ".join(x for x in (s("agent"), one_line(s("description") or s("prompt"), 120)) if x)
    for value in a.values():
        if isinstance(value, str) and value:
            return one_line(value)
    return ""
