"""The app's adapter over runtime/handle.py's SessionHandle: what a session does is decided there;
here only what the app shows (notices, the trust and picker screens). Sessions start in a worker
thread, so loading a long history never blocks a frame.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any, Protocol

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.runtime.handle import SessionHandle
from flue_tui.tui import notifier
from flue_tui.ui.keys import missing_key
from flue_tui.ui.welcome import welcome_text

if TYPE_CHECKING:
    from flue_tui.tui.widgets.prompt import PromptArea


class Host(Protocol):
    """What the adapter needs from the app (tui/app.py's FlueApp), named here so the app and its
    adapter do not import each other."""

    initial_prompt: str | None
    prompt: PromptArea

    def notice(self, text: str, level: str = "info") -> None: ...
    def greet(self, text: str) -> None: ...
    def refresh_status(self) -> None: ...
    def run_worker(self, work: Any, *, group: str = ..., exclusive: bool = ..., exit_on_error: bool = ...) -> Any: ...
    async def push_screen_wait(self, screen: Any) -> Any: ...
    async def attach(self, session: Any, *, resumed: bool) -> None: ...
    def send(self, text: str, display: str | None = None) -> None: ...
    def send_next(self) -> None: ...

    def replay_typed(self) -> None: ...
    def clear_queue(self) -> None: ...


def _mode_for(settings: Settings) -> str:
    from flue_tui.permissions.config import mode_for  # in the thread: its modules, off the first frame

    return mode_for(settings)


class SessionControl:
    """The app's adapter over the runtime's SessionHandle: starts in a worker, shows notices and screens."""

    def __init__(self, app: Host, settings: Settings, options: Any) -> None:
        self.app = app
        self.handle = SessionHandle(settings, options)
        self.starting = False
        self.unavailable: str | None = None
        self.trust_asked = False
        self.resume_hint: str | None = None  # printed after the app has left the terminal
        self.greeted = False  # this run's first session was welcomed before it started
        self.mode_hint = ""  # the mode it will start in, once read
        self.starter: Any = None  # the worker of the newest start

    @property
    def settings(self) -> Settings:
        return self.handle.settings

    @property
    def options(self) -> Any:
        return self.handle.options

    @property
    def started(self) -> Any:
        return self.handle.started

    @property
    def name(self) -> str | None:
        return self.handle.name

    @property
    def session(self) -> Any:
        return self.handle.session

    @property
    def context(self) -> Any:
        return self.handle.context

    @property
    def store(self) -> Any:
        return self.handle.store

    def label(self) -> str:
        return self.handle.label() or ("new session" if self.greeted and self.started is None else "")

    # -- starting ------------------------------------------------------------------------------------
    def start(self, options: Any = None, source: str | None = None) -> None:
        self.starting = True
        self.starter = self.app.run_worker(
            self._start(options if options is not None else self.options, source),
            group="session",
            exclusive=True,
            exit_on_error=False,
        )

    async def wait_started(self) -> None:
        """Until the newest start has ended, however it ended (a rewind's fork: its session exists)."""
        if self.starter is not None:
            try:
                await self.starter.wait()
            except Exception:  # a failed start said why itself
                pass

    async def _start(self, options: Any, source: str | None = None) -> None:
        try:
            await self._start_session(options, source)
        finally:
            self.app.replay_typed()  # however the start ended, what was typed meanwhile is not held

    async def _start_session(self, options: Any, source: str | None = None) -> None:
        self.starting = True
        try:
            early = await self._greet_early()
            await self._ask_trust()
            if options is not None and options.pick:
                chosen = await self._choose(None)
                options = dataclasses.replace(options, pick=False, resume=chosen)
            try:
                started = await asyncio.to_thread(self.handle.start, options, source=source)
            except ConfigError as exc:
                # No model at all means no key was found: the no-key screen, one sentence a line.
                self.unavailable = (missing_key(self.settings) if not self.settings.model else None) or str(exc)
                self.app.notice(self.unavailable, "error")
                first, self.app.initial_prompt = self.app.initial_prompt, None
                if first and not self.app.prompt.text.strip():
                    self.app.prompt.set_text(first)  # kept for when a model is chosen
                return
        finally:
            self.starting = False
        self.unavailable = None
        resumed = started.resumed
        if early:
            self.app.greet(self.welcome())  # the session's own mode (a trusted project may set one)
        await self.app.attach(started.session, resumed=resumed is not None)
        notifier.watch(self.app, started.session)  # OSC 9 + BEL when a turn ends unfocused
        if resumed is not None:
            self.app.notice(f"Resumed {resumed.label} · {resumed.message_count} messages", "info")
        elif not early:
            self.app.notice(self.welcome(), "welcome")
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

    def greet_first(self) -> None:
        """Before the first frame: a fresh session is welcomed with the input box, not once it has
        started (seconds, with litellm's import beside it). The mode is said once it is read."""
        options = self.options
        fresh = options is None or not (options.named or options.session_id)
        if not fresh or not self.settings.model:
            return
        self.greeted = True
        self.app.greet(self.welcome(self.settings.permission_mode))

    async def _greet_early(self) -> bool:
        """The first start, greeted before the first frame: say the mode once it is read (after
        that frame, so its imports do not delay it)."""
        if not self.greeted or self.started is not None:
            return False
        try:
            self.mode_hint = await asyncio.to_thread(_mode_for, self.settings)
        except ConfigError:
            return True  # the start says what is wrong with the file
        self.app.greet(self.welcome())
        self.app.refresh_status()
        return True

    def welcome(self, mode: str | None = "") -> str:
        from flue_tui.tui.approvals import mode_label

        s = self.settings
        mode = mode_label(self.app) if mode == "" else mode
        return welcome_text(cwd=s.cwd, model=s.model or "", mode=mode, sandbox=s.sandbox)

    async def _ask_trust(self) -> None:
        """Once per run, before the first session: may the project's config loosen protection?"""
        if self.trust_asked:
            return
        self.trust_asked = True
        from flue_tui.permissions.project import accept, pending

        asked = await asyncio.to_thread(pending, self.settings)
        if asked is None:
            return
        from flue_tui.tui.screens.trust import TrustScreen  # a screen's modules: only when it is shown

        if not await self.app.push_screen_wait(TrustScreen(asked)):
            return  # "not now": the session starts with the one-line notice of what was ignored
        try:
            self.handle.settings = await asyncio.to_thread(accept, self.settings, asked)
        except ConfigError as exc:
            self.app.notice(str(exc), "error")
            return
        self.app.notice(f"Trusted {asked.path}.")
        self.app.refresh_status()

    async def replace(self, resume_id: str | None) -> None:
        """/new (resume_id None) or /resume: stop the current session and show another."""
        await self.handle.stop()
        source = "resume" if resume_id is not None else "clear"  # Claude Code's SessionEnd/Start words
        self.handle.close(source)
        self.app.clear_queue()
        self.start(self.handle.fresh_options(resume_id), source)

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
        picker = SessionPicker(store, self.settings.cwd, query=ref or "")
        try:
            return await self.app.push_screen_wait(picker)
        finally:
            if owned:
                await picker.settled()  # its list may still be being read in a thread
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
        try:
            line = self.handle.rename(name)
        except ValueError as exc:
            warn = str(exc).startswith("Sessions are not saved")
            self.app.notice(str(exc), "warn" if warn else "error")
            return
        self.app.refresh_status()
        self.app.notice(line)

    def switch_model(self, model: str) -> None:
        if self.session is None and "/" in model:
            self.handle.settings = dataclasses.replace(self.settings, model=model)
            if not self.starting:
                self.start()
            return
        try:
            line = self.handle.switch_model(model)
        except ValueError as exc:
            self.app.notice(str(exc), "error")
            return
        self.app.notice(line)
        hint = missing_key(self.settings)
        if hint:
            self.app.notice(hint, "warn")

    def close(self) -> None:
        from flue_tui.runtime.quitting import close_session

        self.resume_hint = close_session(self.handle) or self.resume_hint
