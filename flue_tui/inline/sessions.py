"""Which session inline mode talks to: start (in a thread, so the prompt is up at once), /new,
/resume, /name and /model. Every change returns the line to print instead of drawing it, so
this stays free of any UI. Same store rules as the TUI's session_ctl (no Textual here).
"""

from __future__ import annotations

import asyncio
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions, Started, start_session


class InlineSessions:
    def __init__(self, settings: Settings, options: SessionOptions | None) -> None:
        self.settings = settings
        self.options = options
        self.started: Started | None = None
        self.name: str | None = None
        self._task: asyncio.Task[Started] | None = None
        self._options = options

    @property
    def session(self) -> Any:
        return self.started.session if self.started is not None else None

    @property
    def persist(self) -> bool:
        return self.options is None or self.options.persist

    def begin(self, options: SessionOptions | None = None, picker: Any = None) -> asyncio.Task[Started]:
        """Start a session in a thread; `ready()` waits for it."""
        options = options if options is not None else self.options
        self._task = asyncio.ensure_future(asyncio.to_thread(start_session, self.settings, options, picker=picker))
        self._options = options
        return self._task

    async def ready(self) -> Started:
        """The started session; raises ConfigError (or SessionStartError) as start_session does."""
        if self.started is None:
            if self._task is None:
                self.begin()
            assert self._task is not None
            self._adopt(await self._task, self._options)
        assert self.started is not None
        return self.started

    def _adopt(self, started: Started, options: SessionOptions | None) -> None:
        self.started = started
        resumed = started.resumed
        self.name = (options.name if options is not None else None) or (resumed.label if resumed else None)

    def label(self) -> str:
        if self.name:
            return self.name
        session = self.session
        first = next((m for m in session.messages if m.role == "user"), None) if session is not None else None
        if first is None:
            return "new session"
        from flue_tui.store.sessions import title_from

        return title_from(first.content, 32)

    async def replace(self, resume: str | None) -> Started:
        """/new (resume None) or /resume REF. A failure raises ConfigError and keeps this session."""
        base = self.options or SessionOptions()
        options = SessionOptions(persist=base.persist, db=base.db, resume=resume, owner=base.owner)
        started = await asyncio.to_thread(start_session, self.settings, options)
        self.close()
        self._adopt(started, options)
        return started

    def recent(self, limit: int = 15) -> list[Any]:
        store = self.started.store if self.started is not None else None
        return store.list_sessions(self.settings.cwd, limit=limit) if store is not None else []

    def rename(self, name: str) -> str:
        """/name NEW → the line to show; raises ValueError with the reason it cannot."""
        from flue_tui.store.db import StoreError
        from flue_tui.store.sessions import check_name

        started = self.started
        if started is None or started.store is None or started.recorder is None:
            raise ValueError("Sessions are not saved in this run, so it cannot be named.")
        store, session = started.store, started.session
        try:
            name = check_name(name)
            if store.get(session.id) is None:
                if store.by_name(name, self.settings.cwd) is not None:
                    raise StoreError(f'A session named "{name}" already exists in {self.settings.cwd}.')
                started.recorder.name = name  # the row is created with the first message
            else:
                store.rename(session.id, name)
        except StoreError as exc:
            raise ValueError(str(exc)) from None
        self.name = name
        return f"Session renamed to {name}."

    def switch_model(self, model: str) -> str:
        from flue_tui.runtime.wiring import Runtime

        if "/" not in model:
            raise ValueError(f"Model ids are provider/model, e.g. anthropic/claude-sonnet-4-5 (got {model!r}).")
        self.settings.model = model
        if self.session is not None:
            try:
                self.session.model = Runtime(self.settings).model_client(model)
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return f"Model: {model}"

    def close(self) -> None:
        started, self.started = self.started, None
        if started is None:
            return
        if started.recorder is not None:
            started.recorder.close()
        if started.store is not None:
            started.store.close()
