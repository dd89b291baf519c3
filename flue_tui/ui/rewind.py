"""/rewind and /undo for every interactive front end: the points to go back to, and the actions.

Point N is the moment just before the session's Nth user message ran (runtime/checkpointing.py).
The actions are blocking (git, SQLite): front ends run them in a thread. Each returns the one
sentence to show; a conversation rewind also returns the fork to switch to and the text to put
back in the prompt. A step that would remove or overwrite files the session's own turns did not
leave changes nothing and names them; the same command with `force` goes ahead (each front end
offers that as its question).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flue_tui.agent import usershell
from flue_tui.checkpoints import GitFailed, GitMissing, Restored, stack
from flue_tui.runtime.checkpointing import TurnCheckpoints, files_for
from flue_tui.ui.bashes import SIGNAL as BG_SIGNAL

FORCE = "force"  # the word that says yes to replacing files the session's turns did not leave
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
    foreign: tuple[str, ...] = ()  # refused: these files would be replaced; ask, then run it with force
    stepped: bool = False  # the fork's newest change to the files is this rewind: its /undo undoes it


def question(done: Rewound, most: int = 20) -> tuple[str, list[str]]:
    """The front ends' yes/no question for a refused step: its title and the files, one a line."""
    n = len(done.foreign)
    lines = list(done.foreign[:most]) + ([f"… and {n - most} more"] if n > most else [])
    return f"This would remove or overwrite {n} file{'s' * (n != 1)} this session's turns did not leave:", lines


def parse_arg(arg: str) -> tuple[int, str, bool] | str | None:
    """`/rewind N [both|code|conversation] [force]` → (N, what, force); "" → None (open the picker); else the error."""
    words = arg.split()
    if not words:
        return None
    force = words[-1] == FORCE
    if force:
        words = words[:-1]
    whats = [c for c, _ in CHOICES]
    if (
        not words
        or not words[0].isdigit()
        or int(words[0]) < 1
        or len(words) > 2
        or (len(words) == 2 and words[1] not in whats)
    ):
        return "Use /rewind, or /rewind N [both|code|conversation] (N: the user message, from 1)."
    return int(words[0]), words[1] if len(words) == 2 else "both", force


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
    return [Point(n, _title(text), n in found) for n, text in prompts]


def _title(text: str) -> str:
    """A follow-up that told the model of background commands is named so, not by its signal."""
    if text.startswith(BG_SIGNAL):
        return "(background commands ended: " + ", ".join(re.findall(r"\(id (bg\d+)\)", text)) + ")"
    return usershell.title(text)


def _names(paths: tuple[str, ...] | list[str], most: int = 5) -> str:
    return ", ".join(paths[:most]) + (f" and {len(paths) - most} more" if len(paths) > most else "")


def _refused(done: Restored, again: str) -> str:
    n = len(done.foreign)
    return (
        f"Nothing was changed: this would remove or overwrite {n} file{'s' * (n != 1)} this session's turns "
        f"did not leave (another session's, or edits since): {_names(done.foreign)}. To go ahead: {again}"
    )


def _told(done: Restored) -> str:
    """What a finished step replaced beyond the session's own files, and what it did not restore."""
    parts = []
    if done.foreign:
        parts.append(f" Also replaced: {_names(done.foreign)}.")
    if done.not_restored:
        parts.append(f" Not restored: {_names([f'{p} ({why})' for p, why in done.not_restored])}.")
    return "".join(parts)


def stepped(session: Any) -> None:
    """The newest change to `session`'s files was a rewind or an undo, not a turn: /undo undoes it."""
    hook = session.seams.before_prompt
    if isinstance(hook, TurnCheckpoints):
        hook.stepped = True


def rewind(session: Any, store: Any, cwd: str, n: int, what: str, force: bool = False) -> Rewound:
    """Go back to just before message `n`: "code", "conversation" or "both"."""
    chosen = next((p for p in points(session, store, cwd) if p.number == n), None)
    if chosen is None:
        return Rewound(f"There is no user message {n} in this session.", error=True)
    parts: list[str] = []
    if what in ("code", "both"):
        try:
            done = stack.rewind(files_for(cwd), session.id, n, force=force)
        except (GitMissing, GitFailed, OSError, ValueError) as exc:
            return Rewound(f"{exc} Nothing was changed.", error=True)
        if done is None:
            return Rewound(f"No file checkpoint was taken before message {n}. Nothing was changed.", error=True)
        if not done.applied:
            return Rewound(_refused(done, f"/rewind {n} {what} {FORCE}"), error=True, foreign=done.foreign)
        stepped(session)
        parts.append(
            f"Files are back to just before message {n}: {len(done.written)} written, "
            f"{len(done.removed)} removed.{_told(done)}"
        )
    if what == "code":
        return Rewound(" ".join(parts) + " /undo puts them back.")
    if store is None:
        return Rewound(
            " ".join(parts + ["This session is not saved, so its conversation cannot be forked."]), error=True
        )
    seq = next(p.seq for p in store.user_prompts(session.id) if p.number == n)
    info = store.get(session.id)
    label = info.label if info is not None else session.id
    fork = store.fork(session.id, before_seq=seq, title=f"{label} (rewound to message {n})")
    try:
        files = files_for(cwd)
        files.copy(session.id, fork.id, below=n)
        if what == "both":
            stack.carry(files, session.id, fork.id)
    except (GitMissing, GitFailed, OSError, ValueError):
        pass
    parts.append(f"Continuing on a fork from just before message {n}; {label} stays as it was.")
    return Rewound(" ".join(parts), fork_id=fork.id, prompt=chosen.text, stepped=what == "both")


def undo(session: Any, cwd: str, force: bool = False) -> Rewound:
    """/undo: undo the newest /rewind or /undo of the files when that was the last change to them
    (again: the one before); else the files back to before the last turn (a code rewind of one step)."""
    hook = session.seams.before_prompt
    last = hook.next - 1 if isinstance(hook, TurnCheckpoints) else 0
    again = f"/undo {FORCE}"
    try:
        files = files_for(cwd)
        if isinstance(hook, TurnCheckpoints) and hook.stepped and stack.depth(files, session.id):
            done = stack.undo(files, session.id, force=force)
            if done is not None and not done.applied:
                return Rewound(_refused(done, again), error=True, foreign=done.foreign)
            if done is not None:
                more = " /undo again goes back one more." if stack.depth(files, session.id) else ""
                return Rewound(
                    f"Rewind undone: {len(done.written)} written, {len(done.removed)} removed.{_told(done)} "
                    f"/redo puts the rewind back.{more}"
                )
        if last < 1:
            return Rewound("Nothing to undo yet: no turn has run in this session.", error=True)
        done = stack.rewind(files, session.id, last, force=force)
    except (GitMissing, GitFailed, OSError, ValueError) as exc:
        return Rewound(f"{exc} Nothing was changed.", error=True)
    if done is None:
        return Rewound(f"No file checkpoint was taken before message {last}. Nothing was changed.", error=True)
    if not done.applied:
        return Rewound(_refused(done, again), error=True, foreign=done.foreign)
    stepped(session)
    return Rewound(
        f"Files are back to just before message {last}: {len(done.written)} written, "
        f"{len(done.removed)} removed.{_told(done)} /undo again puts them back."
    )


def redo(session: Any, cwd: str, force: bool = False) -> Rewound:
    """/redo: re-apply the newest rewind an /undo undid."""
    try:
        done = stack.redo(files_for(cwd), session.id, force=force)
    except (GitMissing, GitFailed, OSError, ValueError) as exc:
        return Rewound(f"{exc} Nothing was changed.", error=True)
    if done is None:
        return Rewound("Nothing to redo: no rewind has been undone.", error=True)
    if not done.applied:
        return Rewound(_refused(done, f"/redo {FORCE}"), error=True, foreign=done.foreign)
    stepped(session)
    return Rewound(
        f"Rewind redone: {len(done.written)} written, {len(done.removed)} removed.{_told(done)} /undo undoes it."
    )
