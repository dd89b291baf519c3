"""Cancellation and the tool-failure exception: shared by the loop, tools and sandboxes.

They sit in core (not tools/) because the sandbox, below tools, raises and honours them too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

ABORT_MESSAGE = "This operation was aborted"


class ToolError(Exception):
    """A tool failure; its message is exactly the text the model sees (no prefix)."""


class AbortError(Exception):
    """Raised when the operation's abort signal fired."""

    def __init__(self, message: str = ABORT_MESSAGE) -> None:
        super().__init__(message)


class AbortSignal:
    """A one-shot cancellation flag shared by the loop, tools and processes (like JS AbortSignal)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self) -> None:
        if self._event.is_set():
            return
        self._event.set()
        for cb in list(self._callbacks):
            cb()

    def add_callback(self, cb: Callable[[], None]) -> Callable[[], None]:
        """Run cb on abort (at once if already aborted); returns a remover."""
        if self.aborted:
            cb()
            return lambda: None
        self._callbacks.append(cb)
        return lambda: self._callbacks.remove(cb) if cb in self._callbacks else None

    async def wait(self) -> None:
        await self._event.wait()

    def throw_if_aborted(self) -> None:
        if self.aborted:
            raise AbortError()


OutputCallback = Callable[[str, str], None]  # (stream: "stdout" | "stderr", chunk)
