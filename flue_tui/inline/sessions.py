"""Which session inline mode talks to: the runtime's SessionHandle, started in a thread so the
prompt is up at once. Every change returns the line to print, so this stays free of any UI."""

from __future__ import annotations

import asyncio

from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import Picker, SessionOptions, SessionStartError, Started


class InlineSessions(SessionHandle):
    _task: asyncio.Task[Started] | None = None
    _pending: SessionOptions | None = None
    _began_with: str | None = None

    def begin(self, options: SessionOptions | None = None, picker: Picker | None = None) -> asyncio.Task[Started]:
        """Start a session in a thread; `ready()` waits for it."""
        options = options if options is not None else self.options
        self._task = asyncio.ensure_future(asyncio.to_thread(self.launch, options, picker=picker))
        self._pending = options
        self._began_with = self.settings.model
        return self._task

    async def ready(self) -> Started:
        """The started session; raises ConfigError (or SessionStartError) as start_session does."""
        if self.started is None:
            if self._task is None:
                self.begin()
            assert self._task is not None
            self.adopt(await self._task, self._pending)
            self.catch_up(self._began_with)
        if self.started is None:  # adopt refused it: inline mode is closing (SessionHandle.end)
            raise SessionStartError("flue is closing; the session was ended as it started.")
        return self.started
