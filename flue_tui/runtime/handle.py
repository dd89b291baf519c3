"""SessionHandle: the one object every front end drives a conversation through.

The app (tui/session_ctl.py), inline mode (inline/sessions.py), `--plain` and `-p` hold one; what a
session is and does — start, resume, fork, /new, rename, model, effort, permission mode, compact,
limits, totals, export, close — is decided here, once. Front ends only draw and ask.

Settings are a value: a change (/model, /effort, /mode, trusting the project) is a method here that
replaces the handle's Settings, so the next session (/new, /resume) starts with what the user chose.
Nothing outside patches the Session after it is built: the Runtime gives it all at construction.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from typing import TYPE_CHECKING, Any

from flue_tui.config.errors import ConfigError
from flue_tui.runtime.start import Picker, SessionOptions, Started, announce, check_budget, start_session

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from flue_tui.agent.session import Session
    from flue_tui.config.settings import Settings
    from flue_tui.core.messages import Usage
    from flue_tui.model.discovery import ModelChoices
    from flue_tui.store.values import SessionInfo


# How long leaving waits for a start still under way (its SessionStart hooks may have run) so that
# its session ends too; a start slower than this closes its session itself when it returns.
END_WAIT_S = 5.0


class SessionHandle:
    def __init__(self, settings: Settings, options: SessionOptions | None = None) -> None:
        self.settings = settings
        self.options = options
        self.started: Started | None = None
        self.name: str | None = None
        self._starts = threading.Condition()
        self._in_flight = 0  # start_session calls under way, in any thread
        self._live: list[Started] = []  # started and not yet closed, adopted or not
        self._gone: str | None = None  # the front end is leaving, for this SessionEnd reason
        self._settle_by: float | None = None  # when leaving stops waiting for starts (monotonic)

    # -- what is running -----------------------------------------------------------------------------
    @property
    def session(self) -> Session | None:
        return self.started.session if self.started is not None else None

    @property
    def context(self) -> Any:
        return self.started.context if self.started is not None else None

    @property
    def store(self) -> Any:
        return self.started.store if self.started is not None else None

    @property
    def persist(self) -> bool:
        return self.options is None or self.options.persist

    @property
    def totals(self) -> Usage | None:
        """Every token and dollar of this session, its task children included (Session.record_usage)."""
        return self.session.usage if self.session is not None else None

    def children_totals(self) -> Usage | None:
        """The task children's stored total over every run of this session (a resumed session's
        earlier children included), or None when the session is not stored (yet)."""
        from flue_tui.core.messages import Usage

        store, session = self.store, self.session
        if store is None or session is None:
            return None
        info = store.get(session.id)
        if info is None:
            return None
        tree = store.tree_usage(info.id)
        own = (info.input_tokens, info.output_tokens, info.cache_read_tokens, info.cache_write_tokens)
        counts = [max(0, a - b) for a, b in zip(tree[:4], own, strict=True)]
        priced = all(store.tree_priced(child.id) for child in store.children(info.id))
        return Usage(*counts, cost=max(0.0, tree[4] - info.cost_usd), priced=priced)

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
        from flue_tui.agent.usershell import title
        from flue_tui.core.messages import UserMessage  # not before the app's first frame
        from flue_tui.core.toolcall import title_from  # not the store's modules: sqlite3 on the app's loop

        return title_from(title(first.typed) if isinstance(first, UserMessage) else "", 32)

    # -- starting and replacing ----------------------------------------------------------------------
    def start(
        self, options: SessionOptions | None = None, *, picker: Picker | None = None, source: str | None = None
    ) -> Started:
        """Blocking (front ends call it in a thread): start per `options` (default: the run's flags)
        and make it the current session. Raises ConfigError / SessionStartError; the current stays."""
        options = options if options is not None else self.options
        began_with = self.settings.model
        started = self.launch(options, picker=picker, source=source)
        self.close()
        self.adopt(started, options)
        self.catch_up(began_with)
        return started

    def catch_up(self, began_with: str | None) -> None:
        """A /model chosen while the session was starting: it was built with the model from before."""
        if self.session is None or not self.settings.model or self.settings.model == began_with:
            return
        try:
            self.switch_model(self.settings.model)
        except ValueError:  # the chosen model cannot be used after all: the settings say what runs
            self.settings = dataclasses.replace(self.settings, model=began_with)

    def launch(self, options: SessionOptions | None, **kw: Any) -> Started:
        """Blocking: start_session, known to `end` while it runs. A start that returns once the
        front end has left is closed at once (its SessionEnd follows the SessionStart it ran)."""
        with self._starts:
            self._in_flight += 1
        try:
            started = start_session(self.settings, options, **kw)
        finally:
            with self._starts:
                self._in_flight -= 1
                self._starts.notify_all()
        with self._starts:
            self._live.append(started)
            gone = self._gone
        if gone is not None:
            self._end_one(started, gone)
        return started

    def adopt(self, started: Started, options: SessionOptions | None) -> None:
        with self._starts:
            if not any(s is started for s in self._live):
                return  # closed already: the front end left while it was starting
        self.started = started
        resumed: SessionInfo | None = started.resumed
        self.name = (options.name if options is not None else None) or (resumed.label if resumed else None)

    def fresh_options(self, resume: str | None = None) -> SessionOptions:
        """/new (resume None) and /resume REF: the run's store and owner, nothing else of its flags."""
        base = self.options or SessionOptions()
        return SessionOptions(persist=base.persist, db=base.db, owner=base.owner, resume=resume)

    async def wait_idle(self) -> None:
        if self.session is not None:
            await self.session.wait_idle()

    async def stop(self) -> None:
        """Abort what runs and wait until it has ended (its last events recorded)."""
        session = self.session
        if session is not None and session.running:
            session.abort()
            await session.wait_idle()

    async def replace(self, resume: str | None) -> Started:
        """/new or /resume REF: the running operation is stopped first; a start that fails raises
        ConfigError and keeps the current session."""
        options = self.fresh_options(resume)
        source = "resume" if resume is not None else "clear"
        started = await asyncio.to_thread(self.launch, options, announced=False)
        await self.stop()
        self.close(source)  # Claude Code's order: SessionEnd (clear or resume), then SessionStart
        await asyncio.to_thread(self._announce, started, source)
        self.adopt(started, options)
        return started

    def _announce(self, started: Started, source: str) -> None:
        """Blocking: the SessionStart of a session launched unannounced, counted as part of its
        start: leaving meanwhile (during `stop`, or from another thread) waits for it and then ends
        the session, and a session that leaving has ended already is not announced at all."""
        with self._starts:
            if not any(s is started for s in self._live):
                return
            self._in_flight += 1
        try:
            announce(started, source, self.settings.model)
        finally:
            with self._starts:
                self._in_flight -= 1
                self._starts.notify_all()

    def recent(self, limit: int = 15) -> list[Any]:
        store = self.store
        return store.list_sessions(self.settings.cwd, limit=limit) if store is not None else []

    # -- changes -------------------------------------------------------------------------------------
    def rename(self, name: str) -> str:
        """/name NEW → the line to show; ValueError with the reason it cannot."""
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
        """/model ID: this session's next turns and every later session; ValueError when it cannot."""
        from flue_tui.runtime.wiring import announce_fallback, main_client

        if "/" not in model:
            raise ValueError(f"Model ids are provider/model, e.g. anthropic/claude-sonnet-4-5 (got {model!r}).")
        settings = dataclasses.replace(self.settings, model=model)
        try:
            check_budget(settings)  # a model without a price would let the budget run out unseen
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        if self.session is not None:
            try:
                # A model swap only: permissions, MCP and the rest of the session stay as they are.
                session = self.session
                self.session.model = main_client(settings, model, announce_fallback(settings, model, lambda: session))
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        self.settings = settings
        return f"Model: {model}"

    def set_effort(self, arg: str) -> str:
        """/effort [level]: show it, or switch it for the next turns (and the children started later)."""
        from flue_tui.model.turn_params import EFFORTS, check_effort

        if not arg.strip():
            return f"Thinking effort: {self.settings.effort or 'off'}. Switch with /effort {'|'.join(EFFORTS)}."
        effort = check_effort(arg)
        self.settings = dataclasses.replace(self.settings, effort=effort)
        session = self.session
        if session is not None and hasattr(session.model, "effort"):
            session.model.effort = effort  # type: ignore[attr-defined]
        return f"Thinking effort: {effort}."

    def add_agents(self, agents: list[Any]) -> None:
        """Task agents defined after the start (the Agent SDK's `agents`, context.Subagent values):
        the task tool's roster and the system prompt's catalog get them now, and every later
        discovery (a compaction's re-read, a task child's) keeps them."""
        started = self.started
        if started is None or started.runtime is None or not agents:
            return
        runtime = started.runtime
        runtime.extra_agents = [a for a in runtime.extra_agents if a.name not in {b.name for b in agents}] + agents
        fresh = runtime.discover(self.settings.cwd, runtime.instructions)
        started.context.roster.agents[:] = fresh.roster.agents  # the task tool holds this roster
        started.session.recompose_prompt()  # the catalog in the system prompt, by the Runtime's discovery

    def keep_mode(self, mode: str) -> None:
        """The permission mode the user switched to (/mode, Shift+Tab): /new and /resume keep it."""
        self.settings = dataclasses.replace(self.settings, permission_mode=mode)

    def reload_settings(self) -> None:
        """Read the config files again with the same flags (after the user trusted the project)."""
        from flue_tui.config.settings import Settings

        self.settings = Settings.from_env(**self.settings.overrides)

    async def compact(self, focus: str | None = None) -> Any:
        if self.session is None:
            raise ValueError("No session yet.")
        return await self.session.compact(focus)

    def save_failure(self) -> str | None:
        """Why the session was not saved completely (one sentence), or None."""
        recorder = self.started.recorder if self.started is not None else None
        return recorder.failure if recorder is not None else None

    def cut_recording(self) -> None:
        """SIGTERM: keep what has streamed (see Recorder.cut)."""
        recorder = self.started.recorder if self.started is not None else None
        if recorder is not None:
            recorder.cut()

    # -- export and close ----------------------------------------------------------------------------
    def export(self, target: str | None) -> str:
        """/export [file.md]: the same redacted Markdown as `flue sessions export` (its children
        included) once the session is stored; before that, the conversation in memory. The path."""
        from flue_tui.core.messages import message_to_dict
        from flue_tui.store.export import export_path, to_markdown, unsaved_markdown, write_markdown

        session = self.session
        if session is None or not session.messages:
            raise ValueError("Nothing to export yet.")
        path = export_path(self.settings.cwd, target, self.label())
        store = self.store
        info = store.get(session.id) if store is not None else None
        if store is not None and info is not None:
            write_markdown(path, lambda clean: to_markdown(store, info, clean))
        else:
            u = session.usage
            usage = (u.input, u.output, u.cache_read, u.cache_write, u.cost)
            messages = [message_to_dict(m) for m in session.messages]
            write_markdown(
                path,
                lambda clean: unsaved_markdown(
                    session.id, self.settings.cwd, self.settings.model, self.label(), messages, usage, clean
                ),
            )
        return path

    def close(self, reason: str = "other") -> None:
        """End the session: the SessionEnd hooks (`reason` as Claude Code's: clear, resume,
        prompt_input_exit, other), then the recording and the store let go."""
        started, self.started = self.started, None
        if started is not None:
            self._end_one(started, reason)

    def settle_starts(self) -> None:
        """The front end is leaving: a session still starting is waited for (up to END_WAIT_S),
        so that what it recorded is there to look at and `end` closes it too. The bound is one for
        the whole leaving: the app closes from its quit, its unmount and its runner's `finally`,
        and a start stuck in a hook must not be waited for again by each (15 s, not 5)."""
        with self._starts:
            if self._settle_by is None:
                self._settle_by = time.monotonic() + END_WAIT_S
            left = self._settle_by - time.monotonic()
            self._starts.wait_for(lambda: self._in_flight == 0, timeout=max(0.0, left))

    def end(self, reason: str) -> None:
        """Leave: every session this handle started and has not closed ends with `reason`, the
        current one and any that finished starting but was never shown."""
        self.settle_starts()
        with self._starts:
            self._gone = reason
            live = [s for s in self._live if s is not self.started]
        self.close(reason)
        for started in live:
            self._end_one(started, reason)

    def _end_one(self, started: Started, reason: str) -> None:
        with self._starts:
            if not any(s is started for s in self._live):
                return  # each session ends once
            self._live = [s for s in self._live if s is not started]
        if started.hooks is not None:
            from flue_tui.hooks.lifecycle import blocking

            try:
                for line in blocking(lambda: started.hooks.session_end(reason)):
                    started.hooks.say(line)
            except Exception as exc:  # noqa: BLE001 - a hook must never cost the recording below
                started.hooks.say(f"SessionEnd hooks did not run: {exc}")
        if started.recorder is not None:
            started.recorder.close()
        if started.store is not None:
            started.store.close()


def model_choices(current: str | None) -> AsyncIterator[ModelChoices]:
    """/model without an id, in every front end: what the picker offers, first what the local
    servers answered (model/discovery.py asks them at once, with a short deadline), then with
    litellm's catalog of the keyed providers' chat models."""
    from flue_tui.model.discovery import gather_steps

    return gather_steps(current)
