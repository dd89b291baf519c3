"""The ACP agent: the protocol's methods over flue sessions (state.py), served by serve.py.

Every method checks what the client sent (the SDK validates the shapes; an unknown session id, a
bad cwd or option is a JSON-RPC error) and never lets one failure end the process.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthMethodAgent,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    UnstructuredCommandInput,
)

from flue_tui import __version__
from flue_tui.acp import options as opts
from flue_tui.acp.state import AcpSession, forked, session_settings, start_handle, stored_sessions
from flue_tui.runtime.start import SessionOptions

log = logging.getLogger("flue.acp")
PAGE = 50
AUTH_METHOD = "provider-api-key"
AUTH_TEXT = (
    "Set your provider's API key (e.g. ANTHROPIC_API_KEY) in the environment or config.toml; flue doctor checks it."
)
SETTLE = 30.0  # at the end of input: how long the answers still being worked out may take


def _tracked(method: Any) -> Any:
    """Count the request while it runs, so the end of input waits for its answer (see shutdown)."""

    @functools.wraps(method)
    async def run(self: FlueAgent, *args: Any, **kw: Any) -> Any:
        self.inflight += 1
        try:
            return await method(self, *args, **kw)
        finally:
            self.inflight -= 1
            if not self.inflight:
                self.settled.set()

    return run


class FlueAgent:
    def __init__(self, settings: Any, options: SessionOptions) -> None:
        self.settings = settings  # the run's flags and files; each session re-reads them for its cwd
        self.options = SessionOptions(persist=options.persist, db=options.db, owner="flue --acp")
        self.sessions: dict[str, AcpSession] = {}
        self.conn: Any = None
        self.client_caps: Any = None
        self.inflight = 0
        self.settled = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # -- handshake ------------------------------------------------------------------------------
    @_tracked
    async def initialize(self, protocol_version: int, client_capabilities: Any = None, **_: Any) -> InitializeResponse:
        from flue_tui.model.route import warm

        self.client_caps = client_capabilities
        s = self.settings  # litellm's import (seconds), if it serves the model, overlaps session/new and typing
        warm(s.model, s.api_base, s.transport)
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=self.options.persist,
                # Images go to the model as in every front end (a model without vision refuses them).
                prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities() if self.options.persist else None,
                    fork=SessionForkCapabilities() if self.options.persist else None,
                    resume=SessionResumeCapabilities() if self.options.persist else None,
                ),
            ),
            agent_info=Implementation(name="flue-tui", title="flue", version=__version__),
            # flue signs in with the provider's own API key, read from the environment or config.
            auth_methods=[AuthMethodAgent(id=AUTH_METHOD, name="Provider API key", description=AUTH_TEXT)],
        )

    @_tracked
    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        """Succeeds when the model's key is there (or none is needed); else says which to set."""
        from flue_tui.model.keyhelp import no_key_help
        from flue_tui.model.keys import key_need

        if method_id != AUTH_METHOD:
            raise RequestError.invalid_params({"methodId": f"flue offers only {AUTH_METHOD!r}"})
        model = self.settings.model
        need = key_need(model, self.settings.api_base) if model else None
        if need is None or need.missing:
            raise RequestError.auth_required({"details": no_key_help(model, need.var if need else None)})
        return AuthenticateResponse()

    # -- sessions -------------------------------------------------------------------------------
    async def _open(self, cwd: str, mcp_servers: Any, options: SessionOptions) -> AcpSession:
        settings = session_settings(self.settings, cwd, mcp_servers)
        handle = await asyncio.to_thread(start_handle, settings, options)
        offered = opts.offered_modes(opts.current_mode(handle))
        from flue_tui.acp.clientio import use_client

        use_client(handle.session, self.conn, self.client_caps, settings)
        state = AcpSession(self.conn, handle, offered)
        old = self.sessions.pop(state.id, None)
        if old is not None:  # the same session opened again (load after load): one owner of its events
            await old.close()
        self.sessions[state.id] = state
        for notice in handle.started.notices if handle.started else []:  # stderr: the log
            log.warning("%s", notice)
        return state

    def _get(self, session_id: str) -> AcpSession:
        state = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if state is None:
            raise RequestError.invalid_params({"sessionId": f"unknown session {session_id!r}"})
        return state

    def _announce(self, state: AcpSession) -> None:
        """The skills and `.claude/commands` as slash commands (the app's own commands need the app)."""
        from flue_tui.ui.commands import runnables

        skills = getattr(state.handle.context, "skills", None)
        commands = []
        for name, description in runnables(skills):
            found = skills.runnable(name) if skills is not None else None
            hint = getattr(found, "argument_hint", "") or "arguments"
            commands.append(
                AvailableCommand(
                    name=name,
                    description=description or name,
                    input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)),
                )
            )
        state.bridge.put(
            AvailableCommandsUpdate(session_update="available_commands_update", available_commands=commands)
        )

    def _shape(self, state: AcpSession) -> dict[str, Any]:
        return {
            "modes": opts.modes(state.handle, state.offered),
            "config_options": opts.config_options(state.handle, state.offered, []),
        }

    @_tracked
    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> NewSessionResponse:
        state = await self._open(cwd, mcp_servers, self.options)
        self._announce(state)
        return NewSessionResponse(session_id=state.id, **self._shape(state))

    async def _stored(self, session_id: str, cwd: str, mcp_servers: Any, *, fork: bool = False) -> AcpSession:
        if not self.options.persist:
            raise RequestError.invalid_request({"sessionId": "sessions are not saved in this run"})
        if not isinstance(session_id, str) or not session_id or len(session_id) > 200:
            raise RequestError.invalid_params({"sessionId": "not a session id"})
        if session_id in self.sessions and self.sessions[session_id].session.running:
            raise RequestError.invalid_request({"sessionId": "that session is running a prompt"})
        if not fork and session_id in self.sessions:  # opened again here: its lock and events move over
            await self.sessions.pop(session_id).close()
        options = (
            forked(self.options, session_id)
            if fork
            else SessionOptions(persist=True, db=self.options.db, owner=self.options.owner, session_id=session_id)
        )
        state = await self._open(cwd, mcp_servers, options)
        if not fork and (state.handle.started is None or state.handle.started.resumed is None):
            await state.close()
            self.sessions.pop(state.id, None)
            raise RequestError.invalid_params({"sessionId": f"no stored session {session_id!r} in {cwd}"})
        return state

    @_tracked
    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any) -> LoadSessionResponse:
        from flue_tui.acp.replay import replay

        state = await self._stored(session_id, cwd, mcp_servers)
        replay(state.session.messages, state.bridge)
        self._announce(state)
        await state.bridge.drain()  # the history is shown before the answer, as the spec asks
        return LoadSessionResponse(**self._shape(state))

    @_tracked
    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> ResumeSessionResponse:
        state = await self._stored(session_id, cwd, mcp_servers)
        self._announce(state)
        return ResumeSessionResponse(**self._shape(state))

    @_tracked
    async def fork_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any) -> ForkSessionResponse:
        state = await self._stored(session_id, cwd, mcp_servers, fork=True)
        self._announce(state)
        return ForkSessionResponse(session_id=state.id, **self._shape(state))

    @_tracked
    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        if not self.options.persist:
            return ListSessionsResponse(sessions=[])
        offset = int(cursor) if isinstance(cursor, str) and cursor.isdigit() and len(cursor) < 10 else 0
        rows = await asyncio.to_thread(stored_sessions, self.options.db, cwd, offset, PAGE + 1)
        sessions = [
            SessionInfo(session_id=r.id, cwd=r.cwd, title=r.label, updated_at=r.updated_at) for r in rows[:PAGE]
        ]
        more = str(offset + PAGE) if len(rows) > PAGE else None
        return ListSessionsResponse(sessions=sessions, next_cursor=more)

    @_tracked
    async def close_session(self, session_id: str, **_: Any) -> None:
        state = self._get(session_id)
        self.sessions.pop(session_id, None)
        await state.close()

    # -- prompts --------------------------------------------------------------------------------
    @_tracked
    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> Any:
        from flue_tui.acp.prompt import prompt_text
        from flue_tui.ui.attach import workspace_roots
        from flue_tui.ui.slash import expand

        state = self._get(session_id)
        settings = state.handle.settings
        roots = workspace_roots("workspace", settings.cwd, settings.add_dirs) or ()
        text, display, images = prompt_text(prompt, state.session, roots)
        typed = expand(text, state.handle.context.skills, where="over ACP")
        if typed.refusal is not None:
            return await state.say(typed.refusal)
        if typed.display is not None:
            text, display = typed.prompt, typed.display
        return await state.prompt(text, display, images)

    async def cancel(self, session_id: str, **_: Any) -> None:
        state = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if state is not None:
            state.cancel()

    # -- modes and options ----------------------------------------------------------------------
    @_tracked
    async def set_session_mode(self, mode_id: str, session_id: str, **_: Any) -> SetSessionModeResponse:
        state = self._get(session_id)
        opts.set_mode(state.handle, state.offered, mode_id)
        return SetSessionModeResponse()

    @_tracked
    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **_: Any
    ) -> SetSessionConfigOptionResponse:
        state = self._get(session_id)
        opts.set_option(state.handle, state.offered, config_id, value)
        return SetSessionConfigOptionResponse(config_options=list(opts.config_options(state.handle, state.offered, [])))

    async def shutdown(self, cut: bool = False) -> None:
        """The end of input (or a signal, `cut`): running prompts are cancelled, the answers still
        being worked out are awaited (briefly) so a piped client reads them, then all is closed."""
        for state in list(self.sessions.values()):
            if cut:
                state.handle.cut_recording()
            state.cancel()
        if self.inflight and not cut:
            self.settled.clear()
            try:
                await asyncio.wait_for(self.settled.wait(), SETTLE)
            except TimeoutError:
                log.warning("stopped with %d requests unanswered", self.inflight)
        for state in list(self.sessions.values()):
            try:
                await state.close(cut=cut)
            except Exception as exc:
                log.warning("closing %s: %s", state.id, exc)
        self.sessions.clear()
