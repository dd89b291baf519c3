"""The recorder: a subscriber that saves a session's event stream. The loop never opens the database.

* Each completed message (`message_end`) is committed at once.
* Streamed assistant text is checkpointed into a `partial` row at most CHECKPOINT_S after it
  arrived (a timer covers a stream that stalls), so `kill -9` loses under a second of text; the
  finished message replaces that row.
* Task children (events whose `session` is not the root) get their own rows, linked to the
  parent session and the parent's tool call.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from flue_tui.core.events import Event, MessageEnd, TaskStart, TextDelta, ThinkingDelta, TurnStart
from flue_tui.core.messages import UserMessage
from flue_tui.core.toolcall import title_from
from flue_tui.store.db import StoreError, describe_failure, write
from flue_tui.store.lock import SessionLock
from flue_tui.store.sessions import SessionStore

CHECKPOINT_S = 0.5


def _stderr(message: str) -> None:
    print(f"flue: {message}", file=sys.stderr)


@dataclass(slots=True)
class _Partial:
    row_id: int | None = None
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    written_at: float = 0.0
    timer: asyncio.TimerHandle | None = None
    event: Event | None = None  # the latest delta, for creating a task child's row on first write


def typed(message: dict[str, Any]) -> str:
    """A stored user message as typed (UserMessage.typed): what titles the session; a `!command`
    is titled `!command`, not by its tags."""
    shell = message.get("shell")
    if isinstance(shell, dict):
        return f"!{shell.get('command')}"
    display = message.get("display")
    content = str(message.get("content", ""))
    return UserMessage(content=content, display=display if isinstance(display, str) else None).typed


def _failed_empty(message: dict[str, Any]) -> bool:
    return (
        message.get("role") == "assistant"
        and message.get("stop_reason") == "error"
        and not message.get("text")
        and not message.get("tool_calls")
    )


class Recorder:
    def __init__(
        self,
        store: SessionStore,
        *,
        session_id: str,
        cwd: str,
        model: str | None = None,
        name: str | None = None,
        exists: bool = False,
        checkpoint_s: float = CHECKPOINT_S,
        warn: Callable[[str], None] | None = None,
        locks: Sequence[SessionLock] = (),
    ) -> None:
        self.store = store
        self.locks = list(locks)  # this process is the session's one writer until close()
        # Where problems are told: stderr by default; the TUI points this at its notices.
        self.warn: Callable[[str], None] = warn or _stderr
        self.root = session_id
        self.cwd = cwd
        self.model = model
        self.name = name
        self.checkpoint_s = checkpoint_s
        # Rows are created with the first message, so opening flue and quitting leaves no empty session.
        self._known: set[str] = {session_id} if exists else set()
        self._tasks: dict[str, TaskStart] = {}
        self._held: list[dict[str, Any]] = []  # messages of a failed first run, written with the next one
        self._partials: dict[str, _Partial] = {}
        self._warned: set[str] = set()
        self.failure: str | None = None  # the first write that failed, as one sentence: the run did not save
        self.closed = False

    def __call__(self, event: Event) -> None:
        if self.closed:
            return
        try:
            if isinstance(event, TextDelta):
                self._delta(event, text=event.text)
            elif isinstance(event, ThinkingDelta):
                self._delta(event, thinking=event.delta)
            elif isinstance(event, MessageEnd):
                self._message(event)
            elif isinstance(event, TurnStart):
                self._drop_partial(event.session)
            elif isinstance(event, TaskStart):
                self._tasks[event.session] = event
        except (sqlite3.Error, StoreError) as exc:
            self._warn(exc)

    def _warn(self, exc: BaseException) -> None:
        # One line per distinct failure: the run goes on; later messages are still attempted, and
        # `failure` keeps the first, so print mode can report the run as failed.
        text = describe_failure(self.store.path, exc) if isinstance(exc, sqlite3.Error) else str(exc)
        if self.failure is None:
            self.failure = f"The session {self.root} was not saved completely. {text}"
        if text not in self._warned:
            self._warned.add(text)
            self.warn(f"Could not save the session: {text}")

    # -- sessions ---------------------------------------------------------------------------------
    def _ensure(self, session_id: str, event: Event, first: dict[str, Any]) -> None:
        if session_id in self._known:
            return
        if self.store.get(session_id) is None:
            title = title_from(typed(first)) if first.get("role") == "user" else None
            if session_id == self.root:
                self._create_root(title)
                for held in self._held:  # what a failed first run said stays in the history, in order
                    self.store.append(session_id, held)
                self._held = []
            else:
                task = self._tasks.get(session_id)
                parent = event.parent_session or self.root
                self._ensure_parent(parent, event)
                self.store.create(
                    session_id,
                    cwd=(task.cwd if task and task.cwd else self.cwd),
                    model=self.model,
                    title=title_from(task.prompt) if task else title,
                    parent_id=parent,
                    parent_tool_call_id=task.tool_call_id if task else None,
                    task_id=event.task_id,
                    agent=task.agent if task else None,
                )
        self._known.add(session_id)

    def _ensure_parent(self, parent: str, event: Event) -> None:
        if parent not in self._known and self.store.get(parent) is None:
            if parent == self.root:
                self._create_root(None)
            else:  # a task's task whose own start we never saw: keep it, unlinked
                self.store.create(parent, cwd=self.cwd)
        self._known.add(parent)

    def _create_root(self, title: str | None) -> None:
        try:
            self.store.create(self.root, cwd=self.cwd, model=self.model, name=self.name, title=title)
        except StoreError:
            # Another flue took the name between our lookup and the first message: keep the
            # conversation, unnamed, and say so.
            self.store.create(self.root, cwd=self.cwd, model=self.model, title=title)
            self.warn(f'The name "{self.name}" was taken meanwhile; this session is saved as {self.root}.')

    # -- messages ---------------------------------------------------------------------------------
    def _message(self, event: MessageEnd) -> None:
        message = event.message
        sid = event.session
        with write(self.store.conn):
            self._ensure(sid, event, message)
            partial = self._partials.pop(sid, None) if message.get("role") == "assistant" else None
            if partial is not None:
                self._cancel(partial)
            if partial is not None and partial.row_id is not None:
                self.store.replace(partial.row_id, sid, message)
            else:
                self.store.append(sid, message)
            flues = str(message.get("content", "")).startswith("<signal ")  # flue's own message, not a prompt
            if message.get("role") == "user" and sid == self.root and not flues:
                self.store.set_title(sid, title_from(typed(message)))
        if sid == self.root and _failed_empty(message) and self._never_answered():
            # A run that failed before any turn (no key, unknown model) is not a conversation: its row
            # existed while the request was out (kill -9 keeps the prompt) and goes now, so the picker
            # and `sessions list` do not fill with them. A later prompt creates it again.
            self._held = [m.data for m in self.store.iter_messages(self.root)]
            self.store.delete(self.root)
            self._known.discard(self.root)

    def _never_answered(self) -> bool:
        """The root holds nothing but prompts and failed, empty replies (and no task children)."""
        conn = self.store.conn
        kept = conn.execute(
            "SELECT count(*) FROM messages WHERE session_id = ? AND NOT (role = 'user' OR "
            "(role = 'assistant' AND stop_reason = 'error' AND coalesce(text, '') = '' "
            "AND coalesce(tool_call_ids, '') IN ('', '[]')))",
            (self.root,),
        ).fetchone()[0]
        children = conn.execute("SELECT count(*) FROM sessions WHERE parent_id = ?", (self.root,)).fetchone()[0]
        return kept == 0 and children == 0 and not self.name

    def _delta(self, event: Event, *, text: str = "", thinking: str = "") -> None:
        sid = event.session
        partial = self._partials.setdefault(sid, _Partial())
        partial.event = event
        if text:
            partial.text.append(text)
        if thinking:
            partial.thinking.append(thinking)
        due = partial.written_at + self.checkpoint_s - time.monotonic()
        if partial.row_id is None or due <= 0:
            self._checkpoint(sid)
        elif partial.timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self._checkpoint(sid)
                return
            partial.timer = loop.call_later(due, self._timer_fired, sid)

    def _timer_fired(self, sid: str) -> None:
        partial = self._partials.get(sid)
        if partial is not None and not self.closed:
            partial.timer = None
            try:
                self._checkpoint(sid)
            except (sqlite3.Error, StoreError) as exc:
                self._warn(exc)

    def _checkpoint(self, sid: str) -> None:
        partial = self._partials[sid]
        text = "".join(partial.text)
        partial.text = [text]  # keep the joined string so the next join is cheap
        thinking = "".join(partial.thinking)
        partial.thinking = [thinking] if thinking else []
        draft = {"role": "assistant", "text": text, "thinking": thinking, "model": self.model or ""}
        with write(self.store.conn):
            if partial.row_id is None:
                self._ensure(sid, partial.event or Event(session=sid), draft)
                partial.row_id = self.store.append(sid, draft, partial=True)
            else:
                self.store.replace(partial.row_id, sid, draft, partial=True)
        partial.written_at = time.monotonic()

    def _drop_partial(self, sid: str) -> None:
        # A new turn: any earlier draft was finished by its message_end (or stays as the record).
        partial = self._partials.pop(sid, None)
        if partial is not None:
            self._cancel(partial)

    @staticmethod
    def _cancel(partial: _Partial) -> None:
        if partial.timer is not None:
            partial.timer.cancel()
            partial.timer = None

    def flush(self) -> None:
        """Write any text not yet checkpointed (for a front end about to exit)."""
        for sid, partial in list(self._partials.items()):
            self._cancel(partial)
            if partial.text or partial.thinking:
                try:
                    self._checkpoint(sid)
                except (sqlite3.Error, StoreError) as exc:
                    self._warn(exc)

    def cut(self) -> None:
        """The process is being stopped (SIGTERM): write what has streamed so far as a cut-off draft,
        as the periodic checkpoint does, and record nothing after it, so a resume keeps that text
        and tells the model the stream broke, as it does after kill -9."""
        self.flush()
        self.closed = True

    def close(self) -> None:
        if not self.closed:
            self.flush()
        self.closed = True
        for lock in self.locks:
            lock.release()
        self.locks = []
