"""What the conversation view shows, as plain data: entries that events mutate and widgets render.

No Textual here. Events change entries and mark them dirty; the view renders dirty entries on a
timer. Keeping the data apart from the widgets is what lets the view unmount old entries (bounded
DOM) and mount them again when the user scrolls back.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flue_tui.core.traits import OTHER, ToolOutcome, ToolTraits

# core/details.py is imported where a tool's details are read: the app imports this module before its
# first frame, which creating the details classes would delay (an entry with details comes later).
if TYPE_CHECKING:
    from flue_tui.core.details import ToolDetails

ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_line(line: str, width: int = 400) -> str:
    """Terminal output → one printable line: colours dropped, `\\r` progress redraws collapsed."""
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    line = line.rstrip("\r")
    if "\r" in line:
        line = line.rsplit("\r", 1)[1]
    if "\t" in line:
        line = line.expandtabs(4)
    line = CONTROL_RE.sub("", line)
    return line if len(line) <= width else line[: width - 1] + "…"


class OutputTail:
    """The last lines of a running command's output; memory stays bounded whatever it prints."""

    MAX_CHUNK = 64 * 1024

    def __init__(self, max_lines: int = 200) -> None:
        self.lines: deque[str] = deque(maxlen=max_lines)
        self.partial: dict[str, str] = {}
        self.total_lines = 0
        self.total_chars = 0

    def feed(self, stream: str, chunk: str) -> None:
        self.total_chars += len(chunk)
        if len(chunk) > self.MAX_CHUNK:
            # Only the end of a huge chunk can reach the screen.
            self.total_lines += chunk.count("\n", 0, len(chunk) - self.MAX_CHUNK)
            chunk = chunk[-self.MAX_CHUNK :]
            self.partial[stream] = ""
        text = self.partial.get(stream, "") + chunk
        parts = text.split("\n")
        rest = parts.pop()
        self.partial[stream] = rest[-self.MAX_CHUNK :]
        self.total_lines += len(parts)
        keep = self.lines.maxlen or len(parts)
        self.lines.extend(clean_line(p) for p in parts[-keep:])

    @classmethod
    def of(cls, text: str) -> OutputTail:
        """A finished command's output read back (a resumed session): the tail it had live."""
        tail = cls()
        tail.feed("stdout", text if text.endswith("\n") or not text else text + "\n")
        return tail

    def last(self, n: int) -> list[str]:
        pending = [clean_line(p) for p in self.partial.values() if p.strip()]
        lines = list(self.lines)[-n:] + pending
        return lines[-n:]


@dataclass(eq=False, slots=True)
class Entry:
    """One block of the conversation. `view` is its mounted widget, or None while unmounted."""

    view: Any = field(default=None, repr=False)

    @property
    def live(self) -> bool:
        return False

    def weight(self) -> int:
        """Roughly how many widgets this entry mounts (the view keeps the sum bounded)."""
        return 1


@dataclass(eq=False, slots=True)
class UserEntry(Entry):
    """A prompt the user sent, as the transcript shows it."""

    text: str = ""


@dataclass(eq=False, slots=True)
class NoticeEntry(Entry):
    """A notice in the transcript: a welcome, an info line, a warning or an error."""

    text: str = ""
    level: str = "info"  # info | warn | error


@dataclass(eq=False, slots=True)
class ReplyEntry(Entry):
    """Assistant text. `text` grows while streaming; the view appends what it has not shown yet."""

    text: str = ""
    done: bool = False
    streamed: bool = False  # arrived in this run's stream (not read back from the store)

    @property
    def live(self) -> bool:
        return not self.done

    def weight(self) -> int:
        # ReplyView + Markdown + one widget per block (two per code fence), frozen segments aside.
        blocks = 1 + self.text.count("\n\n") + self.text.count("```") // 2
        return 2 + min(blocks, 30)


@dataclass(eq=False, slots=True)
class ThinkingEntry(Entry):
    """The model's thinking in the transcript, folded unless expanded."""

    text: str = ""
    done: bool = False
    expanded: bool = False

    @property
    def live(self) -> bool:
        return not self.done


@dataclass(eq=False, slots=True)
class ToolEntry(Entry):
    """A tool call in the transcript: its arguments, its state, and its output so far."""

    call_id: str = ""
    name: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    kind: str = "other"
    status: str = "running"  # running | ok | error
    outcome: ToolOutcome | None = None  # how it ended (core/traits.py); None while it runs
    traits: ToolTraits = OTHER  # the tool's, when known: how its details read back
    started: float = field(default_factory=time.monotonic)  # reset when an approval is answered
    waiting: bool = False  # for the user's approval: no clock runs
    duration_ms: int | None = None
    result_text: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # the stored/wire form; read `info`
    tail: OutputTail | None = None
    expanded: bool = False
    cwd: str = ""

    @property
    def live(self) -> bool:
        return self.status == "running"

    @property
    def info(self) -> ToolDetails | None:
        """The tool's typed details (core/details.py), or None."""
        return self.traits.read_details(self.details)

    @property
    def diff(self) -> str:
        """An edit's or write's unified diff; "" for other tools or when there is none."""
        from flue_tui.core.details import EditDetails, WriteDetails  # see the imports' note

        info = self.info
        return info.diff if isinstance(info, (EditDetails, WriteDetails)) else ""


@dataclass(eq=False, slots=True)
class TaskEntry(ToolEntry):
    """A `task` call: the child's own transcript nests inside, live."""

    child: Transcript | None = None
    agent: str = ""
    prompt: str = ""
    task_id: str | None = None
    session_id: str | None = None
    answer: str | None = None

    def weight(self) -> int:
        return 4 + (12 if self.live else 0)


class Transcript:
    """An ordered list of entries for one session (the root, or a task's child)."""

    def __init__(self, session_id: str | None = None, depth: int = 0) -> None:
        self.session_id = session_id
        self.depth = depth
        self.entries: list[Entry] = []
        self.calls: dict[str, ToolEntry] = {}
        self.reply: ReplyEntry | None = None
        self.thinking: ThinkingEntry | None = None
        # Older entries not materialised yet (resume): called with a count, returns entries oldest-first.
        self.backfill: Callable[[int], list[Entry]] | None = None
        self.view: Any = None  # the container widget showing this transcript

    def end_stream(self) -> list[Entry]:
        """Close the streaming reply/thinking (a tool call or a new turn starts); returns what changed."""
        changed: list[Entry] = []
        if self.reply is not None:
            self.reply.done = True
            changed.append(self.reply)
            self.reply = None
        if self.thinking is not None:
            self.thinking.done = True
            changed.append(self.thinking)
            self.thinking = None
        return changed

    def load_older(self, n: int) -> list[Entry]:
        if self.backfill is None:
            return []
        older = self.backfill(n)
        if not older:
            self.backfill = None
            return []
        self.entries[:0] = older
        for e in older:
            if isinstance(e, ToolEntry):
                self.calls.setdefault(e.call_id, e)
        return older

    @property
    def has_older(self) -> bool:
        return self.backfill is not None
