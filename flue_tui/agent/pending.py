"""A prompt's file checkpoint, taken beside its first model request.

The snapshot (checkpoints/: a few git runs, longer the bigger the tree) used to
run before the request went out, so every prompt's first token waited for it. Nothing the model
asks for can run before its reply has arrived, so the snapshot now overlaps that request, and
whatever could touch a file waits for `settle` first: the tools, hooks and compactions after the
first reply (agent/loop.py), a UserPromptSubmit hook before it (session.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from flue_tui.core.abort import AbortSignal

# Each is called with the Session (Any here: session.py imports this module).
# Awaited once per prompt before its user message joins the history, with the prompt's text: the
# file checkpoints take their snapshot here. Returns the checkpoint's id, or None. Must not raise.
BeforePrompt = Callable[[Any, str], Awaitable[str | None]]
# Awaited once a prompt that got a checkpoint has run (not when aborted), with that checkpoint's id:
# the checkpoints keep the turn's end, so a rewind can tell this session's files from others'.
AfterPrompt = Callable[[Any, str], Awaitable[None]]
# Called with a checkpoint's id when its prompt never joined the history (a UserPromptSubmit hook
# blocked it, after the checkpoint was taken): its number goes to the next prompt, so checkpoint N
# stays the one before the Nth user message the history holds (`/rewind N`).
DropPrompt = Callable[[Any, str], Awaitable[None]]


class PendingCheckpoint:
    def __init__(self, take: Coroutine[Any, Any, str | None] | None) -> None:
        """`take` None: a prompt that takes no checkpoint (refused before anything runs)."""
        self._task = asyncio.ensure_future(take) if take is not None else None
        self._settled = take is None
        self.id: str | None = None

    async def settle(self, signal: AbortSignal) -> str | None:
        """The checkpoint's id once it is taken (None if it was not). An abort (SIGTERM, Esc) does
        not wait for the snapshot of a big tree: its thread is left to finish unawaited, and the
        aborted prompt keeps no checkpoint."""
        if self._settled or self._task is None:
            return self.id
        stop = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait({self._task, stop}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # cancelled while waiting: the checkpoint is given up with the prompt
            self._give_up()
            raise
        finally:
            stop.cancel()
        if not self._task.done():
            self._give_up()
            return None
        self._settled = True
        self.id = None if self._task.cancelled() else self._task.result()
        return self.id

    def forget(self) -> None:
        """The prompt never joined the history (a hook blocked it): it keeps no checkpoint."""
        self.id = None

    def _give_up(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._settled = True
        self.id = None
