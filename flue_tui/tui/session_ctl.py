"""Which session the app shows: start, resume, replace (/new, /resume), rename, switch model.

Sessions are started through runtime/start.py (the store, the recorder, resume), in a thread, so
loading a long history never blocks a frame.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.ui.keys import NO_KEY, missing_key

if TYPE_CHECKING:
    from flue_tui.tui.app import FlueApp

class SessionControl:
    def __init__(self, app: FlueApp, settings: Settings, options: Any) -> None:
        self.app = app
        self.settings = settings
        self.options = options
        self.started: Any = None
        self.starting = False
        self.unavailable: str | None = None
        self.name: str | None = None
        self._closed: Any = None
        self.trust_asked = False

    @property
    def session(self) -> Any:
        return self.started.session if self.started is not None else None

    @property
    def context(self) -> Any:
        return self.started.context if self.started is not None else None

    @property
    def store(self) -> Any:
        return self.started.store if self.started is not None else None

    def label(self) -> str:
        """The session's name, else a title from its first prompt (as the store titles it)."""
        if self.name:
            return self.name
        session = self.session
        if session is None:
            return ""
        first = next((m for m in session.messages if m.role == "user"), None)
        if first is None:
            return "new session"
        from flue_tui.store.sessions import title_from

        return title_from(first.content, 32)

    # -- starting ------------------------------------------------------------------------------------
    def start(self, options: Any = None) -> None:
        self.starting = True
        self.app.run_worker(self._start(options if options is not None else self.options), group="session",
                            exclusive=True, exit_on_error=False)

    async def _start(self, options: Any) -> None:
        from flue_tui.runtime.start import start_session

        self.starting = True
        try:
            await self._ask_trust()
            if options is not None and options.pick:
                chosen = await self._choose(None)
                options = dataclasses.replace(options, pick=False, resume=chosen)
            try:
                started = await asyncio.to_thread(start_session, self.settings, options)
            except ConfigError as exc:
                # No model at all means no key was found: say so in one line that fits 80 columns.
                self.unavailable = NO_KEY if not self.settings.model else str(exc)
                self.app.notice(self.unavailable, "error")
                return
        finally:
            self.starting = False
        self.unavailable = None
        self.started = started
        resumed = started.resumed
        self.name = (options.name if options is not None else None) or (resumed.label if resumed else None)
        await self.app.attach(started.session, resumed=resumed is not None)
        if resumed is not None:
            self.app.notice(f"Resumed {resumed.label} · {resumed.message_count} messages", "info")
        for line in [*started.notices, *getattr(started.context, "warnings", [])]:
            self.app.notice(line, "warn")
        hint = missing_key(self.settings)
        if hint:
            self.app.notice(hint, "warn")
        first, self.app.initial_prompt = self.app.initial_prompt, None
        if first:
            self.app.send(first)
        else:
            self.app.send_next()

    async def _ask_trust(self) -> None:
        """Once per run, before the first session: may the project's config loosen protection?"""
        if self.trust_asked:
            return
        self.trust_asked = True
        from flue_tui.permissions.project import accept, pending
        from flue_tui.tui.screens.trust import TrustScreen

        asked = await asyncio.to_thread(pending, self.settings)
        if asked is None or not await self.app.push_screen_wait(TrustScreen(asked)):
            return  # "not now": the session starts with the one-line notice of what was ignored
        try:
            await asyncio.to_thread(accept, self.settings, asked)
        except ConfigError as exc:
            self.app.notice(str(exc), "error")
            return
        self.app.notice(f"Trusted {asked.path}.")
        self.app.refresh_status()

    def _base_options(self, **changes: Any) -> Any:
        from flue_tui.runtime.start import SessionOptions

        base = self.options or SessionOptions()
        fresh = SessionOptions(persist=base.persist, db=base.db, owner=base.owner)
        return dataclasses.replace(fresh, **changes)

    async def replace(self, resume_id: str | None) -> None:
        """/new (resume_id None) or /resume: stop the current session and show another."""
        session = self.session
        if session is not None and session.running:
            session.abort()
            for _ in range(50):
                if not session.running:
                    break
                await asyncio.sleep(0.02)
        self.close()
        self.started = None
        self.name = None
        self.app.queue.clear()
        self.app._show_queue()
        self.start(self._base_options(resume=resume_id))

    # -- the picker ------------------------------------------------------------------------------------
    async def _open_store(self) -> Any:
        if self.store is not None:
            return self.store, False
        from flue_tui.store.sessions import SessionStore

        db = self.options.db if self.options is not None else None
        return await asyncio.to_thread(SessionStore.open, db), True

    async def _choose(self, ref: str | None) -> str | None:
        from flue_tui.tui.screens.picker import SessionPicker

        try:
            store, owned = await self._open_store()
        except Exception as exc:  # a broken database must not stop the app
            self.app.notice(f"Cannot open the session store: {exc}", "error")
            return None
        try:
            return await self.app.push_screen_wait(SessionPicker(store, self.settings.cwd, query=ref or ""))
        finally:
            if owned:
                store.close()

    async def pick(self, ref: str | None) -> None:
        if self.options is not None and not self.options.persist and self.store is None:
            self.app.notice("Sessions are not saved in this run (--no-session-persistence).", "warn")
            return
        self.app.run_worker(self._pick(ref), group="picker", exclusive=True, exit_on_error=False)

    async def _pick(self, ref: str | None) -> None:
        chosen = await self._choose(ref)
        if chosen is not None and (self.session is None or chosen != self.session.id):
            await self.replace(chosen)

    # -- changes ---------------------------------------------------------------------------------------
    async def rename(self, name: str) -> None:
        from flue_tui.store.db import StoreError
        from flue_tui.store.sessions import check_name

        store, recorder, session = self.store, getattr(self.started, "recorder", None), self.session
        if store is None or session is None or recorder is None:
            self.app.notice("Sessions are not saved in this run, so it cannot be named.", "warn")
            return
        try:
            name = check_name(name)
            if store.get(session.id) is None:
                taken = store.by_name(name, self.settings.cwd)
                if taken is not None:
                    raise StoreError(f'A session named "{name}" already exists in {self.settings.cwd}.')
                recorder.name = name  # the row is created with the first message
            else:
                store.rename(session.id, name)
        except StoreError as exc:
            self.app.notice(str(exc), "error")
            return
        self.name = name
        self.app.refresh_status()
        self.app.notice(f"Session renamed to {name}.")

    def switch_model(self, model: str) -> None:
        from flue_tui.runtime.wiring import Runtime

        if "/" not in model:
            self.app.notice(f"Model ids are provider/model, e.g. anthropic/claude-sonnet-4-5 (got {model!r}).", "error")
            return
        self.settings.model = model
        if self.session is None:
            if not self.starting:
                self.start()
            return
        self.session.model = Runtime(self.settings).model_client(model)
        self.app.notice(f"Model: {model}")
        hint = missing_key(self.settings)
        if hint:
            self.app.notice(hint, "warn")

    def close(self) -> None:
        if self.started is None or self.started is self._closed:
            return
        self._closed = self.started
        recorder = getattr(self.started, "recorder", None)
        if recorder is not None:
            recorder.close()
        store = self.store
        if store is not None:
            store.close()
