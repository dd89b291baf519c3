"""One ACP session: a SessionHandle started for the client's directory and MCP servers, its update
bridge, its permission asker, and the prompt that runs in it.

A session is a flue session: stored and named like any other, so `flue --resume ID` continues it
in the terminal and `session/load` continues a terminal one. The client's `mcpServers` join the
run's own servers through flue's MCP manager, as `--mcp-config` would, under the same permission
policy (their tools ask before they run unless a rule or the mode allows them).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from typing import Any

from acp import RequestError
from acp.schema import PromptResponse, StopReason, Usage

from flue_tui.acp.asker import AcpAsker
from flue_tui.acp.updates import Bridge
from flue_tui.config.errors import ConfigError
from flue_tui.config.text import lone_surrogate
from flue_tui.permissions.policy import policy_of
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions

MAX_MCP_SERVERS = 32


def _server_entry(server: Any) -> tuple[str, dict[str, Any]]:
    name = str(server.name)
    if getattr(server, "type", None) in ("http", "sse"):
        headers = {str(h.name): str(h.value) for h in server.headers or []}
        return name, {"type": server.type, "url": str(server.url), "headers": headers}
    if getattr(server, "type", None) == "acp":
        raise RequestError.invalid_params({"mcpServers": f"{name}: MCP over ACP is not supported"})
    env = {str(e.name): str(e.value) for e in server.env or []}
    return name, {"type": "stdio", "command": str(server.command), "args": [str(a) for a in server.args], "env": env}


def session_settings(base: Any, cwd: str, mcp_servers: list[Any] | None) -> Any:
    """The run's settings for the client's directory, with its MCP servers added. The directory
    must be absolute and exist; the project's files there are read as flue reads any directory's
    (an untrusted project loosens nothing)."""
    from flue_tui.config.settings import Settings

    if not isinstance(cwd, str) or not os.path.isabs(cwd) or "\0" in cwd or lone_surrogate(cwd) is not None:
        raise RequestError.invalid_params({"cwd": "cwd must be an absolute path"})
    servers = list(mcp_servers or [])
    if len(servers) > MAX_MCP_SERVERS:
        raise RequestError.invalid_params({"mcpServers": f"at most {MAX_MCP_SERVERS} servers"})
    overrides = dict(base.overrides)
    overrides["cwd"] = os.path.realpath(cwd)
    if servers:
        entries = dict(_server_entry(s) for s in servers)
        overrides["mcp_config"] = [*(base.mcp_config or []), json.dumps({"mcpServers": entries})]
    try:
        return Settings.from_env(**overrides)
    except ConfigError as exc:
        raise RequestError.invalid_params({"cwd": str(exc)}) from None


def start_handle(settings: Any, options: SessionOptions) -> SessionHandle:
    """Blocking (run in a thread): a started handle; a start that fails is one JSON-RPC error."""
    handle = SessionHandle(settings, options)
    try:
        handle.start()
    except ConfigError as exc:
        raise RequestError(-32000, str(exc)) from None
    return handle


class AcpSession:
    def __init__(self, conn: Any, handle: SessionHandle, offered: tuple[str, ...]) -> None:
        self.conn, self.handle, self.offered = conn, handle, offered
        session = handle.session
        assert session is not None, "AcpSession needs a started handle"
        self.id = session.id
        self.cancelled = asyncio.Event()
        self.task: asyncio.Task[Any] | None = None
        self.bridge = Bridge(self._send, session)
        session.subscribe(self.bridge)
        policy = policy_of(session)
        if policy is not None:
            policy.asker = AcpAsker(conn, self.id, self.bridge, policy, self.cancelled)

    async def _send(self, update: Any) -> None:
        await self.conn.session_update(session_id=self.id, update=update)

    @property
    def session(self) -> Any:
        return self.handle.session

    async def prompt(self, text: str, display: str | None, images: tuple[Any, ...] = ()) -> PromptResponse:
        if self.task is not None and not self.task.done():
            raise RequestError.invalid_request({"sessionId": "a prompt is already running in this session"})
        self.cancelled.clear()
        task = self.task = asyncio.ensure_future(self.session.prompt(text, display=display, images=images))
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:  # the connection closed under us: stop the turn too
            self.session.abort()
            raise
        await self.bridge.drain()
        stop = stop_reason(result, self.cancelled.is_set())
        if result.is_error and stop == "end_turn":  # a provider error, the budget: the turn failed
            raise RequestError(-32603, result.hint or result.error or "the prompt failed")
        return PromptResponse(stop_reason=stop, usage=_usage(result.usage))

    async def say(self, text: str) -> PromptResponse:
        """A prompt answered without the model (an app command, an unknown /name): its one sentence."""
        from acp.schema import AgentMessageChunk, TextContentBlock

        self.bridge.put(
            AgentMessageChunk(session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text))
        )
        await self.bridge.drain()
        return PromptResponse(stop_reason="end_turn")

    def cancel(self) -> None:
        self.cancelled.set()
        self.session.abort()

    async def close(self, cut: bool = False) -> None:
        if self.session is not None and self.session.running:
            if cut:
                self.handle.cut_recording()
            self.cancel()
            await self.handle.wait_idle()
        await self.bridge.drain()
        self.bridge.close()
        self.handle.close()


def stop_reason(result: Any, cancelled: bool) -> StopReason:
    """ACP's stop reason for flue's OperationResult, honestly: an abort is `cancelled`, a reply cut
    at the output limit `max_tokens`, --max-turns `max_turn_requests`, a provider's refusal
    `refusal`. A failed turn (provider error, budget) is a JSON-RPC error instead (agent.py)."""
    if result.aborted or cancelled:
        return "cancelled"
    if result.stop_reason == "max_tokens":
        return "max_tokens"
    if result.stop_reason == "refusal":
        return "refusal"
    if result.subtype == "error_max_turns":
        return "max_turn_requests"
    return "end_turn"


def _usage(u: Any) -> Usage:
    return Usage(
        total_tokens=u.input + u.output + u.cache_read + u.cache_write,
        input_tokens=u.input,
        output_tokens=u.output,
        cached_read_tokens=u.cache_read or None,
        cached_write_tokens=u.cache_write or None,
    )


def stored_sessions(db: str | None, cwd: str | None, offset: int, limit: int) -> list[Any]:
    """Blocking: `session/list`'s rows, newest first (the store's conversations, not task children)."""
    from flue_tui.store.sessions import SessionStore

    with SessionStore.open(db) as store:
        return store.list_sessions(cwd, limit=limit, offset=offset)


def forked(options: SessionOptions, source: str) -> SessionOptions:
    """`session/fork`'s options: the source named by its exact id, as load and resume name it, so
    the start's one check (runtime/start._by_id) refuses another project's session for all three."""
    return dataclasses.replace(options, resume=None, fork=True, session_id=source)
