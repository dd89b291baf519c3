"""The client's files and terminals, when it offers them (`fs/*`, `terminal/*` in its capabilities).

With `fs.readTextFile` / `fs.writeTextFile`, the read, edit and write tools read and write through
the editor, so an edit lands in its buffer (unsaved changes included). Only a path whose real
location is inside the session's workspace goes to the client; anything else, or a client that
fails the request, is read or written on disk as without the capability (the tool's own errors
then say what is wrong). The policy has decided before a tool runs: the client only does the I/O.

With `terminal`, the bash tool's commands run in a client terminal the editor shows live, under
the local sandbox only: `--sandbox workspace` keeps its commands in flue's own container.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from flue_tui.acp.updates import TERMINAL_STREAM
from flue_tui.core.abort import AbortError
from flue_tui.sandbox.base import ExecResult

OUTPUT_LIMIT = 1024 * 1024


def _inside(real: str, roots: tuple[str, ...]) -> bool:
    return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)


class _Wrapped:
    def __init__(self, inner: Any, conn: Any, session_id: str) -> None:
        self.inner, self.conn, self.session_id = inner, conn, session_id

    @property
    def cwd(self) -> str:
        return self.inner.cwd

    def __getattr__(self, name: str) -> Any:
        if name == "open_binary":  # reads must come through read_bytes, i.e. the client
            raise AttributeError(name)
        return getattr(self.inner, name)


class ClientFiles(_Wrapped):
    def __init__(self, inner: Any, conn: Any, session_id: str, roots: tuple[str, ...], read: bool, write: bool):
        super().__init__(inner, conn, session_id)
        self.roots, self.can_read, self.can_write = roots, read, write

    def resolve_path(self, path: str) -> str:
        return self.inner.resolve_path(path)

    def _client_path(self, path: str) -> str | None:
        real = os.path.realpath(self.inner.resolve_path(path))
        if not _inside(real, self.roots) or os.path.isdir(real) or (os.path.exists(real) and not os.path.isfile(real)):
            return None
        return real

    async def read_text(self, path: str) -> str:
        real = self._client_path(path) if self.can_read else None
        if real is not None:
            try:
                got = await self.conn.read_text_file(session_id=self.session_id, path=real)
                return str(got.content)
            except Exception:  # the client cannot: the disk decides (and its errors are the tool's)
                pass
        return await self.inner.read_text(path)

    async def read_bytes(self, path: str) -> bytes:
        real = self._client_path(path) if self.can_read else None
        if real is not None:
            try:
                got = await self.conn.read_text_file(session_id=self.session_id, path=real)
                return str(got.content).encode("utf-8", "surrogatepass")
            except Exception:
                pass
        return await self.inner.read_bytes(path)

    async def write_text(self, path: str, content: str) -> None:
        real = self._client_path(path) if self.can_write else None
        if real is not None:
            try:
                await self.conn.write_text_file(session_id=self.session_id, path=real, content=content)
                return
            except Exception:
                pass
        await self.inner.write_text(path, content)


class ClientTerminal(_Wrapped):
    """The bash tool's sandbox: `exec` in a client terminal; everything else as the inner one."""

    async def exec(
        self,
        command: str,
        *,
        timeout_ms: float | None = None,
        signal: Any = None,
        on_output: Any = None,
        cwd: str | None = None,
    ) -> ExecResult:
        if signal is not None and signal.aborted:
            raise AbortError()
        where = self.inner.resolve_path(cwd) if cwd else self.inner.cwd
        made = await self.conn.create_terminal(
            session_id=self.session_id, command="bash", args=["-c", command], cwd=where, output_byte_limit=OUTPUT_LIMIT
        )
        tid = made.terminal_id
        if on_output is not None:
            on_output(TERMINAL_STREAM, tid)
        stopped = asyncio.Event()
        remove = signal.add_callback(stopped.set) if signal is not None else None
        try:
            waiting = asyncio.ensure_future(
                self.conn.wait_for_terminal_exit(session_id=self.session_id, terminal_id=tid)
            )
            stop = asyncio.ensure_future(stopped.wait())
            await asyncio.wait({waiting, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not waiting.done():
                waiting.cancel()
                await self.conn.kill_terminal(session_id=self.session_id, terminal_id=tid)
                raise AbortError()
            done = waiting.result()
            out = await self.conn.terminal_output(session_id=self.session_id, terminal_id=tid)
            code = done.exit_code if done.exit_code is not None else (128 + 15 if done.signal else 1)
            return ExecResult(str(out.output), "", int(code))
        finally:
            if remove is not None:
                remove()
            try:
                await self.conn.release_terminal(session_id=self.session_id, terminal_id=tid)
            except Exception:
                pass


def use_client(session: Any, conn: Any, caps: Any, settings: Any) -> None:
    """Give the session's tools the client's files and terminal where it offers them."""
    if session is None or caps is None:
        return
    fs = getattr(caps, "fs", None)
    read, write = bool(getattr(fs, "read_text_file", False)), bool(getattr(fs, "write_text_file", False))
    terminal = bool(getattr(caps, "terminal", False)) and getattr(settings, "sandbox", "local") == "local"
    roots = tuple(os.path.realpath(d) for d in [settings.cwd, *settings.add_dirs])
    for tool in session.tools.values():
        inner = getattr(tool, "sandbox", None)
        if inner is None or isinstance(inner, _Wrapped):
            continue
        if tool.name in ("read", "write", "edit") and (read or write):
            tool.sandbox = ClientFiles(inner, conn, session.id, roots, read, write)
        elif tool.name == "bash" and terminal:
            tool.sandbox = ClientTerminal(inner, conn, session.id)
