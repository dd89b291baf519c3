"""A tool call as ACP shows it: its kind, title and locations, decided here once.

The kind and the path arguments come from the tool's traits (core/traits.py), which flue's policy
and workspace guard read too; a tool that declares no paths (an MCP tool, a replayed call whose
tool is gone) has its usual path arguments read. Every path is made absolute against the session's
directory, as ACP wants, and only strings are ever used (the arguments are the model's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from flue_tui.core.toolcall import call_summary
from flue_tui.core.traits import traits_of

# flue's kinds → ACP's ToolKind (delegate: a sub-agent thinks, it touches nothing itself).
_KINDS = {"read": "read", "edit": "edit", "search": "search", "execute": "execute", "delegate": "think"}
_PATH_ARGS = ("path", "file_path", "filePath")


@dataclass(frozen=True, slots=True)
class ToolInfo:
    kind: str
    title: str
    locations: tuple[tuple[str, int | None], ...]  # (absolute path, 0-based line or None)


def describe(tool: Any, name: str, args: Any, cwd: str) -> ToolInfo:
    """`tool` may be None (a replayed call whose tool is gone, a tool flue does not know)."""
    a = args if isinstance(args, dict) else {}
    traits = traits_of(tool)
    kind = _KINDS.get(traits.kind, "other")
    summary = call_summary(name, a, cwd)
    title = f"{name} {summary}".strip()
    raw: list[Any] = traits.path_values(a) if traits.paths else [a.get(k) for k in _PATH_ARGS]
    line = None
    offset = a.get("offset")
    if name == "read" and isinstance(offset, int) and not isinstance(offset, bool) and offset > 0:
        line = offset - 1
    locations = []
    for path in raw:
        if isinstance(path, str) and path and "\0" not in path:  # as the tools resolve it (Flue's local())
            locations.append((os.path.normpath(os.path.join(cwd, path)), line))
    return ToolInfo(kind, title, tuple(dict.fromkeys(locations)))
