"""Taking a file checkpoint before each user message, for every front end (Session.before_prompt).

Checkpoint `<session id>/<n>` is the workspace just before the session's nth user message ran (n
counts the stored user messages from 1, so it matches `flue sessions rewind NAME --to N`). While
the turn runs, every tool call that can change files is watched (Session.watch_tool, its task
children's too): a write or edit claims its file as the tool left it, a command (bash, a `!`
command, bash_background's start) what changed between snapshots just before and just after it.
The turn's claims are kept as `<session id>/own-<n>` as each call makes them, so a rewind can tell
what the session's own tool calls wrote (checkpoints/claims.py), and another session's rewind
already sees them while this turn still runs, or after it was killed. The snapshots run
off the event loop; a failure is one notice per session (on stderr in `-p`, a notice in the app and
inline mode), never the turn's error, and a call whose snapshot failed claims nothing.
What a checkpoint is *about* (its time, its prompt) is the user message itself, in the session
store: the checkpoint store keeps only refs to trees.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flue_tui.checkpoints import FileCheckpoints, GitFailed, GitMissing, owners
from flue_tui.checkpoints.claims import Claims, file_state
from flue_tui.config.paths import checkpoints_home
from flue_tui.core.events import Log

if TYPE_CHECKING:
    from flue_tui.agent.session import Session
    from flue_tui.core.traits import ToolTraits

TAG = "[flue:checkpoints]"


def files_for(workspace: str) -> FileCheckpoints:
    return FileCheckpoints(Path(workspace), checkpoints_home())


def disabled_reason(workspace: str) -> str | None:
    """Why this workspace gets no file checkpoints: a home or root directory would copy a whole disk."""
    if os.environ.get("FLUE_CHECKPOINTS", "").strip().lower() in ("0", "off", "false", "no"):
        return ""  # switched off on purpose: no notice
    real = os.path.realpath(workspace)
    if real in (os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)):
        return (
            f"File checkpoints are off in {real} (a home or root directory is too big to snapshot); "
            "run flue in a project directory to get them."
        )
    return None


class TurnCheckpoints:
    """The before_prompt hook of one session (`end` its after_prompt), given to it at construction;
    `done` user messages already ran."""

    def __init__(self, workspace: str, done: int = 0) -> None:
        self.workspace = workspace
        self.next = done + 1  # the number of the next user message
        self.files: FileCheckpoints | None = None
        self.off = disabled_reason(workspace)  # None: on
        self.noticed = False
        self.skipped_seen: set[str] = set()
        self.stepped = False  # the newest change to the files was a /rewind or /undo, not a turn (/undo undoes it)
        self.claims = Claims()  # what the running turn's own tool calls wrote
        self.turn: str | None = None  # the running turn's checkpoint ref, for its claims' name
        self.saving = asyncio.Lock()  # one save of the turn's claims at a time, the newest last

    async def __call__(self, session: Session, text: str) -> str | None:
        n, self.next = self.next, self.next + 1
        self.stepped = False
        self.claims = Claims()
        self.turn = None
        if self.off is not None:
            self._notice(session, self.off)
            return None
        ref = f"{session.id}/{n}"
        first = text.strip().splitlines()[0][:200] if text.strip() else ""
        try:
            if self.files is None:
                self.files = files_for(self.workspace)
            snap = await asyncio.to_thread(self.files.snapshot, ref, f"before message {n}: {first}")
        except GitMissing as exc:
            self.off = str(exc)
            self._notice(session, self.off)
            return None
        except (GitFailed, OSError, ValueError) as exc:
            self._notice(
                session, f"File checkpoint before message {n} was not taken ({exc}); the conversation is still saved."
            )
            return None
        new = [p for p in snap.skipped if p not in self.skipped_seen]
        if new:
            self.skipped_seen.update(new)
            shown = ", ".join(new[:5]) + (f" and {len(new) - 5} more" if len(new) > 5 else "")
            limit = self.files.max_file_bytes // (1024 * 1024)
            session.emit(
                session.event(
                    Log,
                    level="warn",
                    message=f"{TAG} Not in checkpoints (over {limit} MB, unreadable or a nested repository): {shown}",
                )
            )
        self.turn = ref
        return ref

    async def end(self, session: Session, ref: str) -> None:
        """Session.after_prompt: the turn `ref` is over; its claims were kept as its calls made them."""
        self.claims = Claims()
        self.turn = None

    async def _keep(self, session: Any, claims: Claims) -> None:
        """Keep the running turn's claims so far: another session's rewind reads them at once, and a
        turn killed half-way still names what its calls wrote."""
        files, ref = self.files, self.turn
        if files is None or ref is None or claims is not self.claims or not claims:
            return
        sid, _, n = ref.rpartition("/")
        async with self.saving:
            data = claims.encode(f"{sid}/own-{n}")  # encoded on the loop: the calls add to it here
            try:
                await asyncio.to_thread(owners.save, files, f"{sid}/own-{n}", data)
            except (GitFailed, OSError, ValueError) as exc:
                self._notice(session, f"What turn {n} wrote was not kept ({exc}); a rewind will ask about its files.")

    @contextlib.asynccontextmanager
    async def watch(self, session: Any, traits: ToolTraits, args: dict[str, Any]) -> AsyncIterator[None]:
        """Session.watch_tool, around one tool call that ran to its end: what it wrote is claimed.
        An edit tool is not held up before it runs (it queues for its file's lock at once)."""
        files = self.files
        if files is None or self.off is not None or traits.read_only or traits.kind not in ("edit", "execute"):
            yield
            return
        claims = self.claims
        if traits.kind == "edit" and traits.paths:
            yield
            for path in traits.path_values(args):
                rel = owners.relative(files, session.cwd, path)
                state = (
                    None
                    if rel is None
                    else await asyncio.to_thread(file_state, str(files.workspace / rel), files.max_file_bytes)
                )
                if rel is not None and state is not None:
                    claims.wrote[rel] = state
            await self._keep(session, claims)
            return
        if self._only_reads(traits, args, session.cwd):
            yield  # nothing of it to claim: its two snapshots are not taken
            return
        try:
            before = await asyncio.to_thread(files.snapshot, None, "before a command")
        except (GitFailed, OSError, ValueError) as exc:
            self._notice(session, f"A command's files were not watched ({exc}); a rewind will ask about them.")
            before = None
        yield
        if before is None:
            return
        try:
            after = await asyncio.to_thread(files.snapshot, None, "after a command")
            claims.ran.update(await asyncio.to_thread(owners.window, files, before.commit, after.commit))
        except (GitFailed, OSError, ValueError) as exc:
            self._notice(session, f"A command's files were not watched ({exc}); a rewind will ask about them.")
            return
        await self._keep(session, claims)

    def _only_reads(self, traits: ToolTraits, args: dict[str, Any], cwd: str) -> bool:
        """A shell command the policy's read-only check passes (ls, git status …). Were it wrong, what
        the command wrote is claimed by no one: a rewind asks about it, the safe side."""
        from flue_tui.permissions.readonly import read_only  # judged with the call: not at a session's start

        command = traits.subject_of(args) if traits.shell else None
        return command is not None and self.files is not None and read_only(command, cwd, (str(self.files.workspace),))

    async def drop(self, session: Session, ref: str) -> None:
        """Session.drop_prompt: checkpoint `ref`'s prompt never joined the history (a hook blocked
        it). The next prompt takes its number, and the checkpoint goes now: a rewind meanwhile (the
        next prompt's snapshot still running) must not find it under that number."""
        n = ref.rpartition("/")[2]
        if not n.isdigit() or int(n) != self.next - 1 or self.files is None:
            return
        self.next -= 1
        files = self.files

        def forget() -> None:
            with files.git.locked():
                files.update_refs({}, (ref,))

        try:
            await asyncio.to_thread(forget)
        except (GitFailed, OSError, ValueError) as exc:
            self._notice(session, f"The checkpoint of a blocked prompt was not removed ({exc}).")

    def warm(self) -> None:
        """Take an unnamed snapshot in the background, so the first prompt's checkpoint is incremental
        (the very first snapshot of a big tree hashes every file). For interactive sessions only:
        `-p` sends its prompt at once, so there is nothing to overlap with."""
        if self.off is not None:
            return

        def run() -> None:
            try:
                if self.files is None:
                    self.files = files_for(self.workspace)
                self.files.snapshot(None, "warm-up")
            except (GitMissing, GitFailed, OSError, ValueError):
                pass  # the first prompt tries again and says what is wrong

        threading.Thread(target=run, name="flue-checkpoint-warm-up", daemon=True).start()

    def _notice(self, session: Session, message: str) -> None:
        if self.noticed or not message:
            return
        self.noticed = True
        session.emit(session.event(Log, level="warn", message=f"{TAG} {message}"))


def carry_over(hook: TurnCheckpoints, session_id: str, *, forked_from: str | None = None, warm: bool = False) -> None:
    """Once the session `hook` was built into exists (Session(before_prompt=hook, after_prompt=hook.end)):
    a fork gets its source's checkpoints, so it can be rewound as far back too; an interactive
    session's first snapshot starts in the background (`warm`)."""
    if forked_from is not None and hook.off is None:
        try:
            files_for(hook.workspace).copy(forked_from, session_id)
        except (GitMissing, GitFailed, OSError, ValueError):
            pass  # the fork works without them; its own checkpoints start with its next message
    if warm:
        hook.warm()
