"""Tool `details`, typed per tool: what a tool tells the UI about its result (never the model).

A tool builds one of these values; `wire()` turns it into the dict that events, the store's JSON
and stream-json output carry, with the keys and order they always had (`exitCode`, `matchCount`,
…), so stored sessions and the wire stay byte-identical. A tool names its class in its traits
(core/traits.py); front ends read `traits.read_details(dict)`: the stored or streamed dict back as
the typed value, or None. That dict is untrusted (an imported
session, an MCP tool's result under a built-in's name), so a field of the wrong type is dropped,
never raised on.

Tools whose details nobody reads by field (skill, finish, give_up, MCP tools) keep a plain dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class BashDetails:
    """The bash tool's details: the command, how it exited, and how long it ran."""

    command: str
    exit_code: int | None  # 124 when flue's timeout ended the command
    duration_ms: int

    def wire(self) -> dict[str, Any]:
        return {"command": self.command, "exitCode": self.exit_code, "durationMs": self.duration_ms}

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> BashDetails:
        return cls(_str(d.get("command")) or "", _int(d.get("exitCode")), _int(d.get("durationMs")) or 0)


@dataclass(frozen=True, slots=True)
class ReadDetails:
    """The read tool's details: the file, its size in lines or bytes, and how much was shown."""

    path: str
    lines: int | None = None  # the file's line count (a text file)
    size: int | None = None  # bytes (a binary file, not shown)
    binary: bool = False
    shown: int | None = None  # lines the model got, when fewer than the file's (offset/limit, truncation)

    def wire(self) -> dict[str, Any]:
        if self.binary:
            return {"path": self.path, "size": self.size, "binary": True}
        # `shown` only for a partial read, so a whole read's dict stays the one always stored.
        return {"path": self.path, "lines": self.lines} | ({} if self.shown is None else {"shown": self.shown})

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> ReadDetails:
        return cls(
            _str(d.get("path")) or "",
            _int(d.get("lines")),
            _int(d.get("size")),
            d.get("binary") is True,
            _int(d.get("shown")),
        )


@dataclass(frozen=True, slots=True)
class WriteDetails:
    """The write tool's details: the file, its size, and the diff of the change."""

    path: str
    size: int  # JS string length, which Flue calls bytes
    diff: str  # unified diff of the change; "" when identical or too large

    def wire(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "diff": self.diff}

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> WriteDetails:
        return cls(_str(d.get("path")) or "", _int(d.get("size")) or 0, _str(d.get("diff")) or "")


@dataclass(frozen=True, slots=True)
class EditDetails:
    """The edit tool's details: the file, the diff, and how many replacements a replaceAll made."""

    path: str
    diff: str
    replacements: int | None = None  # replaceAll only

    def wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.replacements is not None:
            out["replacements"] = self.replacements
        out["diff"] = self.diff
        return out

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> EditDetails:
        return cls(_str(d.get("path")) or "", _str(d.get("diff")) or "", _int(d.get("replacements")))


@dataclass(frozen=True, slots=True)
class MatchDetails:
    """grep (matching lines, at most the shown limit) and glob (files)."""

    match_count: int
    noun: ClassVar[str] = "match"  # what one match is, on screen: `3 matches`

    def wire(self) -> dict[str, Any]:
        return {"matchCount": self.match_count}

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> MatchDetails | None:
        count = _int(d.get("matchCount"))
        return cls(count) if count is not None else None


@dataclass(frozen=True, slots=True)
class FileMatchDetails(MatchDetails):
    """glob: the matches are files (`3 files`); the wire is MatchDetails' own."""

    noun: ClassVar[str] = "file"


@dataclass(frozen=True, slots=True)
class TaskDetails:
    """A task that ran (task_id and session set) or named an unknown agent (available set)."""

    agent: str
    task_id: str | None = None
    session: str | None = None
    cwd: str | None = None
    available: tuple[str, ...] | None = None

    def wire(self) -> dict[str, Any]:
        if self.available is not None:
            return {"agent": self.agent, "available": list(self.available)}
        return {"taskId": self.task_id, "session": self.session, "agent": self.agent, "cwd": self.cwd}

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> TaskDetails:
        names = d.get("available")
        available = tuple(n for n in names if isinstance(n, str)) if isinstance(names, list) else None
        return cls(
            _str(d.get("agent")) or "", _str(d.get("taskId")), _str(d.get("session")), _str(d.get("cwd")), available
        )


TODO_STATUSES = ("pending", "in_progress", "completed")


@dataclass(frozen=True, slots=True)
class Todo:
    """One item of the plan `todo_write` keeps."""

    content: str
    status: str  # one of TODO_STATUSES


@dataclass(frozen=True, slots=True)
class PlanDetails:
    """todo_write's plan as the model last wrote it: what the checklist, inline mode and ACP show."""

    todos: tuple[Todo, ...]

    def wire(self) -> dict[str, Any]:
        return {"todos": [{"content": t.content, "status": t.status} for t in self.todos]}

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> PlanDetails:
        items = d.get("todos")
        todos = [
            Todo(t["content"], t["status"])
            for t in (items if isinstance(items, list) else [])
            if isinstance(t, Mapping) and isinstance(t.get("content"), str) and t.get("status") in TODO_STATUSES
        ]
        return cls(tuple(todos))


ToolDetails = (
    BashDetails | ReadDetails | WriteDetails | EditDetails | MatchDetails | FileMatchDetails | TaskDetails | PlanDetails
)


def wire(details: ToolDetails | Mapping[str, Any]) -> dict[str, Any]:
    """The dict form events, the store and stream-json carry."""
    return dict(details) if isinstance(details, Mapping) else details.wire()
