"""The process's MCP servers: configured by each Runtime, started in the background, offered to
every session (root and task children) as `mcp__<server>__<tool>` tools.

One manager per process, so `/new`, `/resume` and sub-agents share the running servers instead of
starting them again. Nothing here runs at import or while building a session: servers start when a
front end calls `start()` after its first frame, or at the latest before a session's first model
request (`before_turn`), which waits for servers still starting (each bounded by its startup
timeout) so the first request already lists their tools.
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flue_tui.mcp.config import McpSetup, ServerConfig
from flue_tui.mcp.tools import PREFIX, McpTool, tool_name

if TYPE_CHECKING:  # the connection's module: imported once a server is configured, not at every start
    from flue_tui.mcp.connection import Connection


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One MCP server's state as `/mcp` and `flue mcp` report it."""

    name: str
    status: str
    transport: str
    target: str  # command line or URL
    tools: tuple[str, ...]  # the names the model sees
    error: str | None
    source: str


class McpManager:
    def __init__(self) -> None:
        self.cwd = "."
        self.conns: dict[str, Connection] = {}
        self.tools: dict[str, McpTool] = {}
        self.sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self.started = False
        self.echo_stderr = False  # print mode: failures go to stderr as they happen
        self.listeners: list[Callable[[], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # What carries the Agent SDK's in-process servers' messages (mcp/sdkserver.Send), set by
        # headless/claude when an SDK drives the run; None: such a server fails to start.
        self.sdk_send: Any = None

    # -- configuration ---------------------------------------------------------------------------
    def configure(self, setup: McpSetup, cwd: str) -> None:
        """Adopt the servers a Runtime read; changed or removed ones are stopped (restarted when running)."""
        self.cwd = cwd
        wanted = {s.name: s for s in setup.servers}
        for name, conn in list(self.conns.items()):
            if wanted.get(name) != conn.config:
                del self.conns[name]
                self._spawn(conn.stop())
        for name, config in wanted.items():
            if name not in self.conns:
                from flue_tui.mcp.connection import Connection

                self.conns[name] = Connection(config, cwd, self._changed, lambda: self.sdk_send)
        self._rebuild()
        for session in list(self.sessions):
            self.sync(session)

    def _spawn(self, coro: Any) -> None:
        try:
            asyncio.get_running_loop().create_task(coro)
        except RuntimeError:  # a Runtime built in a worker thread: stop on the loop that started it
            if self._loop is not None and not self._loop.is_closed():
                asyncio.run_coroutine_threadsafe(coro, self._loop)
            else:
                coro.close()  # never started: nothing to stop

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the configured servers not started yet, in the background: on the running loop,
        returns at once (the front ends call it after their first frame)."""
        self.started = True
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (tests, a second asyncio.run): the old tasks are gone
            for conn in self.conns.values():
                conn.forget()
            self._loop = loop
        for conn in self.conns.values():
            if conn.status == "pending":
                conn.start()

    async def wait_started(self) -> None:
        pending = [c for c in self.conns.values() if c.status in ("starting", "pending")]
        if pending:
            await asyncio.gather(*(c.wait_ready(c.config.startup_timeout + 5) for c in pending))

    async def before_turn(self, session: Any) -> None:
        """Session.before_turn: servers started, those still starting awaited (until the user
        interrupts: Esc must not wait for a slow server), tools current."""
        self.start()
        waiting = asyncio.ensure_future(self.wait_started())
        signal = getattr(session, "_signal", None)  # the running operation's abort signal
        if signal is not None:
            stop = asyncio.ensure_future(signal.wait())
            await asyncio.wait({waiting, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            waiting.cancel()  # only the wait: the servers go on starting in their own tasks
        else:
            await waiting
        self.sync(session)

    async def restart(self, name: str) -> str:
        conn = self.conns.get(name)
        if conn is None:
            return f"No MCP server named {name!r}."
        await conn.restart()
        await conn.wait_ready(conn.config.startup_timeout + 5)
        return f"{name}: {conn.status}" + (f" ({conn.error})" if conn.error else "")

    async def stop(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.conns.values()), return_exceptions=True)
        self.started = False

    # -- tools -----------------------------------------------------------------------------------
    def attach(self, session: Any) -> None:
        """Offer the servers' tools to `session`, now and whenever they change (it was built with
        `before_turn=manager.before_turn`, which starts the servers before its first request)."""
        self.sessions.add(session)
        self.sync(session)

    def _changed(self, conn: Connection) -> None:
        if conn.status == "failed" and self.conns.get(conn.config.name) is conn:
            self.notify(f"MCP server {conn.config.name} failed: {conn.error}")
        self._rebuild()
        for session in list(self.sessions):
            self.sync(session)
        for fn in list(self.listeners):
            fn()

    def _rebuild(self) -> None:
        taken: set[str] = set()
        tools: dict[str, McpTool] = {}
        for conn in self.conns.values():
            if conn.status != "connected":
                continue
            for tool in conn.tools:
                name = tool_name(conn.config.name, str(tool.name), taken)
                tools[name] = McpTool(name, conn, tool)
        self.tools = tools

    def sync(self, session: Any) -> None:
        """Replace the session's MCP tools with the current ones (the loop reads them every turn)."""
        current = session.tools
        for name in [n for n, t in current.items() if isinstance(t, McpTool)]:
            del current[name]
        for name, tool in self.tools.items():
            if name not in current:  # a built-in tool's name always wins
                current[name] = tool

    def notify(self, text: str) -> None:
        from flue_tui.core.events import Log

        if self.echo_stderr:
            print(f"flue: {text}", file=sys.stderr)
        for session in list(self.sessions):
            if session.depth == 0:
                session.emit(session.event(Log, level="warn", message=text))

    # -- reporting -------------------------------------------------------------------------------
    def statuses(self) -> list[ServerStatus]:
        out = []
        for conn in self.conns.values():
            names = tuple(n for n, t in self.tools.items() if t.server is conn)
            out.append(
                ServerStatus(
                    conn.config.name,
                    conn.status,
                    conn.config.transport,
                    conn.config.describe(),
                    names,
                    conn.error,
                    conn.config.source,
                )
            )
        return out


_MANAGER: McpManager | None = None


def manager() -> McpManager:
    global _MANAGER
    if _MANAGER is None:
        _MANAGER = McpManager()
    return _MANAGER


def is_mcp_name(name: str) -> bool:
    return name.startswith(PREFIX)


def describe(servers: list[ServerConfig]) -> str:
    return ", ".join(f"{s.name} ({s.describe()})" for s in servers)
