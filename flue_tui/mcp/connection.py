"""One MCP server: started, listed, called and stopped through the official SDK.

Each connection lives in one asyncio task (the SDK's transports and ClientSession are anyio
context managers that must be entered and left by the same task); calls from tool tasks go through
the session it holds. A server that fails to start, crashes or times out never raises into flue:
its status says why, with the tail of its stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from flue_tui.mcp.config import ServerConfig

STDERR_TAIL = 300  # characters of a failed server's stderr shown in its notice
GROUP_MARK = "flue-mcp-group "
# Runs before the server's own program (then execs it): it dies with flue even by SIGKILL
# (PR_SET_PDEATHSIG), and names its process group on stderr first, so flue's reaper
# (sandbox/procguard.py) can kill the whole group, the server's children included; what leaves
# the group carries the server's mark in its environment (sandbox/proctree.py).
LAUNCH = r"""
import ctypes, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
except Exception:
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
os.write(2, b"flue-mcp-group %d\n" % os.getpgid(0))
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    sys.stderr.write(f"cannot run {sys.argv[2]}: {exc.strerror}\n")
    os._exit(127)
"""


class McpCallError(Exception):
    """A tool call that did not produce a result; the message is what the model sees."""


def _closed(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _one_line(exc.exceptions[0])
    if _closed(exc):
        return "the server closed the connection (exited?)"
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, MCPError):
        return exc.error.message[:300]
    text = str(exc).strip().replace("\n", " ") or type(exc).__name__
    return text[:300]


class Connection:
    def __init__(
        self,
        config: ServerConfig,
        cwd: str,
        on_change: Callable[[Connection], None],
        sdk: Callable[[], Any] = lambda: None,
    ) -> None:
        self.config = config
        self.sdk = sdk  # who carries an Agent SDK server's messages (read when it starts)
        self.cwd = cwd
        self.on_change = on_change
        self.status = "pending"  # pending, starting, connected, failed, stopped
        self.error: str | None = None
        self.tools: list[Any] = []  # mcp_types.Tool
        self.server_name: str | None = None
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._ready: asyncio.Event | None = None
        self._stderr: Any = None
        self._group: int | None = None
        self._mark: str | None = None
        self._relist = False
        self._relisting: asyncio.Task[None] | None = None

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Begin connecting in the background (needs a running loop); returns at once."""
        if self._task is not None and not self._task.done():
            return
        self._stop, self._ready = asyncio.Event(), asyncio.Event()
        self.status, self.error, self.tools = "starting", None, []
        self._task = asyncio.get_running_loop().create_task(self._main(), name=f"mcp:{self.config.name}")

    def forget(self) -> None:
        """Drop a connection whose event loop has ended: it starts afresh on the next start()."""
        self._task = self._session = self._stop = self._ready = None
        self.status, self.tools = "pending", []

    async def wait_ready(self, timeout: float | None = None) -> None:
        if self._ready is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), timeout)

    async def stop(self) -> None:
        """Close the session and the transport (the SDK ends a stdio server's process group)."""
        task, self._task = self._task, None
        if task is None:
            return
        if self._stop is not None:
            self._stop.set()
        if self.status == "starting":
            task.cancel()  # still in the handshake: it never looks at _stop
        try:
            await asyncio.wait_for(asyncio.shield(task), 10)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
        if self.status != "failed":
            self.status = "stopped"
        self._session = None

    async def restart(self) -> None:
        await self.stop()
        self.start()

    def _transport(self) -> Any:
        cfg = self.config
        if cfg.transport == "sdk":
            from flue_tui.mcp.sdkserver import sdk_transport

            return sdk_transport(cfg.name, self.sdk())
        if cfg.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            from flue_tui.sandbox.local import clean_env
            from flue_tui.sandbox.proctree import NAME, new_mark

            # flue's command allowlist plus the server's own env: provider keys are never inherited.
            # The mark (sandbox/proctree.py) is how what the server starts outside its group is found.
            self._mark = new_mark()
            env = {**clean_env(), **dict(cfg.env), NAME: self._mark}
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            launch = ["-I", "-S", "-c", LAUNCH, str(os.getpid()), cfg.command or "", *cfg.args]
            cwd = os.path.join(self.cwd, cfg.cwd) if cfg.cwd else self.cwd  # relative to the project
            params = StdioServerParameters(command=sys.executable, args=launch, env=env, cwd=cwd)
            return stdio_client(params, errlog=self._stderr)
        from mcp.shared._httpx_utils import create_mcp_http_client

        if cfg.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(cfg.url or "", headers=dict(cfg.headers))
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(cfg.url or "", http_client=create_mcp_http_client(headers=dict(cfg.headers)))

    async def _main(self) -> None:
        from mcp.client.session import ClientSession

        assert self._stop is not None and self._ready is not None
        try:
            async with contextlib.AsyncExitStack() as stack:
                async with asyncio.timeout(self.config.startup_timeout):
                    read, write = await stack.enter_async_context(self._transport())
                    session = await stack.enter_async_context(
                        ClientSession(read, write, message_handler=self._on_message)
                    )
                    result = await session.initialize()
                    self.server_name = getattr(getattr(result, "server_info", None), "name", None)
                    self._session = session
                    self._watch_group()
                    await self._list()
                self.status = "connected"
                self._ready.set()
                self.on_change(self)
                await self._stop.wait()
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # noqa: BLE001 - a server's failure is its status, never flue's crash
            while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # anyio's task groups wrap
                exc = exc.exceptions[0]
            if isinstance(exc, TimeoutError):
                self.fail(f"did not start within {self.config.startup_timeout:g} s")
            else:
                self.fail(_one_line(exc))
        finally:
            self._session = None
            if self._group is not None:  # the SDK has ended the group by now
                from flue_tui.sandbox.procguard import reaper

                reaper.release(self._group)
                self._group = None
            if self._mark is not None:  # and what the server left outside its group
                from flue_tui.sandbox.proctree import kill_marked

                kill_marked(self._mark)
                self._mark = None
            self._ready.set()
            if self._stderr is not None:
                with contextlib.suppress(OSError):
                    self._stderr.close()
                self._stderr = None

    def _watch_group(self) -> None:
        """The server answered, so the launcher has run: hand its process group to the reaper."""
        f = self._stderr
        if f is None:
            return
        try:
            f.flush()
            f.seek(0)
            first = f.readline()
            f.seek(0, 2)
        except (OSError, ValueError):
            return
        if first.startswith(GROUP_MARK) and first[len(GROUP_MARK) :].strip().isdigit():
            from flue_tui.sandbox.procguard import reaper

            self._group = int(first[len(GROUP_MARK) :])
            reaper.watch(self._group)

    def stderr_tail(self) -> str:
        f = self._stderr
        if f is None:
            return ""
        try:
            f.flush()
            size = f.seek(0, 2)
            f.seek(max(0, size - STDERR_TAIL * 4))
            text = f.read()
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith(GROUP_MARK)]
        return " | ".join(lines[-3:])[-STDERR_TAIL:]

    def fail(self, why: str) -> None:
        if self.status == "failed":
            return
        tail = self.stderr_tail()
        self.status, self.error = "failed", why + (f" (stderr: {tail})" if tail else "")
        self.tools = []
        self.on_change(self)

    # -- tools ----------------------------------------------------------------------------------
    async def _list(self) -> None:
        tools: list[Any] = []
        cursor = None
        for _ in range(100):  # a server that pages forever stops here
            if cursor is None:
                page = await self._session.list_tools()
            else:
                from mcp_types import PaginatedRequestParams

                page = await self._session.list_tools(params=PaginatedRequestParams(cursor=cursor))
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self.tools = tools

    async def _on_message(self, message: Any) -> None:
        from mcp_types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification) and self._session is not None:
            # Listed from a task of its own: the handler runs on the SDK's receive path, and a burst
            # of notifications coalesces into one listing at a time.
            self._relist = True
            if self._relisting is None or self._relisting.done():
                self._relisting = asyncio.get_running_loop().create_task(self._relist_tools())

    async def _relist_tools(self) -> None:
        while self._relist and self._session is not None:
            self._relist = False
            try:
                await self._list()
            except Exception as exc:  # noqa: BLE001
                self.error = f"could not list tools after a change: {_one_line(exc)}"
            self.on_change(self)

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        """tools/call with the configured timeout; every failure is an McpCallError."""
        session = self._session
        if session is None or self.status != "connected":
            raise McpCallError(
                f"MCP server {self.config.name} is not connected" + (f": {self.error}" if self.error else "")
            )
        timeout = self.config.tool_timeout
        try:
            async with asyncio.timeout(timeout):
                return await session.call_tool(tool, args)
        except TimeoutError:
            raise McpCallError(f"MCP tool {tool} on server {self.config.name} timed out after {timeout:g} s") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - protocol, transport and server errors alike
            if _closed(exc) or (self._task is not None and self._task.done()):
                self.fail(_one_line(exc))
                if self._stop is not None:
                    self._stop.set()  # leave the SDK's context: it ends the process group
            raise McpCallError(f"MCP server {self.config.name} failed: {_one_line(exc)}") from None
