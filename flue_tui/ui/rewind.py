"""/rewind and /undo for every interactive front end: the points to go back to, and the actions.

Point N is the moment just before the session's Nth user message ran (runtime/checkpointing.py).
The actions are blocking (git, SQLite): front ends run them in a thread. Each returns the one
sentence to show; a conversation rewind also returns the fork to switch to and the text to put
back in the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flue_tui.agent import usershell
from flue_tui.checkpoints import GitFailed, GitMissing
from flue_tui.runtime.checkpointing import TurnCheckpoints, files_for

CHOICES = (
    ("both", "restore code and conversation"),
    ("conversation", "restore the conversation only"),
    ("code", "restore the code only"),
)


@dataclass(frozen=True, slots=True)
class Point:
    number: int
    text: str
    has_files: bool


@dataclass(frozen=True, slots=True)
class Rewound:
    message: str  # what happened, in one or two sentences
    fork_id: str | None = None  # the session to continue in (a conversation rewind)
    prompt: str | None = None  # message N, to edit and send again
    error: bool = False


def parse_arg(arg: str) -> tuple[int, str] | str | None:
    """`/rewind N [both|code|conversation]` → (N, what); "" → None (open the picker); else the error."""
    words = arg.split()
    if not words:
        return None
    whats = [c for c, _ in CHOICES]
    if not words[0].isdigit() or int(words[0]) < 1 or len(words) > 2 or (len(words) == 2 and words[1] not in whats):
        return "Use /rewind, or /rewind N [both|code|conversation] (N: the user message, from 1)."
    return int(words[0]), words[1] if len(words) == 2 else "both"


def points(session: Any, store: Any, cwd: str) -> list[Point]:
    """The session's user messages, oldest first, each with whether its file checkpoint exists."""
    if store is not None:
        prompts = [(p.number, p.text) for p in store.user_prompts(session.id)]
    else:
        prompts = [(n, m.content) for n, m in enumerate((m for m in session.messages if m.role == "user"), 1)]
    try:
        found = files_for(cwd).numbered(session.id)
    except (GitMissing, GitFailed, OSError, ValueError):
        found = {}
    return [Point(n, usershell.title(text), n in found) for n, text in prompts]


def _restore(session: Any, cwd: str, n: int) -> str:
    files = files_for(cwd)
    commit = files.resolve(f"{session.id}/{n}")
    if commit is None:
        raise LookupError(f"No file checkpoint was taken before message {n}.")
    done = files.restore(commit)
    files.keep(f"{session.id}/undo", done.before.commit)
    left = f" Left alone: {', '.join(done.left_alone[:5])}." if done.left_alone else ""
    return f"Files are back to just before message {n}: {len(done.written)} written, {len(done.removed)} removed.{left}"


def rewind(session: Any, store: Any, cwd: str, n: int, what: str) -> Rewound:
    """Go back to just before message `n`: "code", "conversation" or "both"."""
    chosen = next((p for p in points(session, store, cwd) if p.number == n), None)
    if chosen is None:
        return Rewound(f"There is no user message {n} in this session.", error=True)
    parts: list[str] = []
    try:
        if what in ("code", "both"):
            parts.append(_restore(session, cwd, n))
    except (LookupError, GitMissing, GitFailed, OSError, ValueError) as exc:
        return Rewound(f"{exc} Nothing was changed.", error=True)
    if what == "code":
        return Rewound(" ".join(parts))
    if store is None:
        return Rewound(
            " ".join(parts + ["This session is not saved, so its conversation cannot be forked."]), error=True
        )
    seq = next(p.seq for p in store.user_prompts(session.id) if p.number == n)
    info = store.get(session.id)
    label = info.label if info is not None else session.id
    fork = store.fork(session.id, before_seq=seq, title=f"{label} (rewound to message {n})")
    try:
        files_for(cwd).copy(session.id, fork.id, below=n)
    except (GitMissing, GitFailed, OSError, ValueError):
        pass
    parts.append(f"Continuing on a fork from just before message {n}; {label} stays as it was.")
    return Rewound(" ".join(parts), fork_id=fork.id, prompt=chosen.text)


def undo(session: Any, cwd: str) -> Rewound:
    """/undo: the files back to before the last turn (a code rewind of one step)."""
    hook = session.before_prompt
    last = hook.next - 1 if isinstance(hook, TurnCheckpoints) else 0
    if last < 1:
        return Rewound("Nothing to undo yet: no turn has run in this session.", error=True)
    try:
        return Rewound(f"{_restore(session, cwd, last)} To put them back: flue sessions rewind {session.id} --undo")
    except (LookupError, GitMissing, GitFailed, OSError, ValueError) as exc:
        return Rewound(f"{exc} Nothing was changed.", error=True)
