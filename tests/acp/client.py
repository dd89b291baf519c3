"""A recording ACP client on the SDK's client side, and `flue --acp` spawned under it.

It keeps every `session/update`, answers `session/request_permission` from a script (or holds the
question until the test releases it), and offers `fs/*` and `terminal/*` only when a test asks:
what the editor would do, on real files and real processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

FLUE = shutil.which("flue", path=str(Path(sys.executable).parent))
LIMIT = 240.0  # a fresh flue imports litellm: seconds of CPU on a loaded machine


class RecordingClient:
    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.changed = asyncio.Condition()
        self.answers: list[str | None] = []  # option ids to choose, in order; None: cancelled outcome
        self.hold: asyncio.Event | None = None  # set: questions wait for it before answering
        self.questions: list[Any] = []
        self.buffers: dict[str, str] = {}  # fs: what the "editor" holds, unsaved
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, dict[str, Any]] = {}
        self.fs_requests: list[tuple[str, str]] = []

    async def _note(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, check: Callable[[], Any], limit: float = LIMIT) -> Any:
        async def until() -> Any:
            async with self.changed:
                while not (got := check()):
                    await self.changed.wait()
                return got

        return await asyncio.wait_for(until(), limit)

    def kinds(self) -> list[str]:
        return [u.session_update for _, u in self.updates]

    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    # -- the Client protocol --------------------------------------------------------------------
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        await self._note()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        self.questions.append((tool_call, options))
        await self._note()
        if self.hold is not None:
            await self.hold.wait()
        choice = self.answers.pop(0) if self.answers else None
        if choice is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=choice))

    async def read_text_file(self, session_id: str, path: str, **_: Any) -> Any:
        self.fs_requests.append(("read", path))
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text())

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> Any:
        self.fs_requests.append(("write", path))
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self, session_id: str, command: str, args: list[str] | None = None, cwd: Any = None, **_: Any
    ):
        tid = f"term-{len(self.terminals) + 1}"
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        self.terminals[tid] = {"proc": proc, "argv": [command, *(args or [])], "out": b"", "released": False}
        await self._note()
        return CreateTerminalResponse(terminal_id=tid)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        term = self.terminals[terminal_id]
        out, _ = await term["proc"].communicate()
        term["out"] += out or b""
        return WaitForTerminalExitResponse(exit_code=term["proc"].returncode)

    async def terminal_output(self, session_id: str, terminal_id: str, **_: Any) -> Any:
        term = self.terminals[terminal_id]
        return TerminalOutputResponse(output=term["out"].decode(), truncated=False)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.terminals[terminal_id]["proc"].kill()

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        self.terminals[terminal_id]["released"] = True

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        pass


def agent_env(flue_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in flue_env.items() if k in ("PATH", "HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env.update({k: flue_env[k] for k in ("FLUE_RETRY_BASE_MS", "FLUE_HOME") if k in flue_env})
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextlib.asynccontextmanager
async def running(
    flue_env: dict[str, str],
    cwd: Path,
    *args: str,
    client: RecordingClient | None = None,
    fs: bool = False,
    terminal: bool = False,
    stderr: Path | None = None,
) -> AsyncIterator[tuple[Any, RecordingClient, Any]]:
    """`flue --acp ARGS` under a RecordingClient, initialized; (connection, client, initialize answer)."""
    assert FLUE is not None
    client = client or RecordingClient()
    err = open(stderr or cwd.parent / f"{cwd.name}-acp-stderr.txt", "ab")  # noqa: SIM115
    try:
        async with spawn_agent_process(
            client,  # type: ignore[arg-type]  # only the methods flue calls
            FLUE,
            "--acp",
            "--model",
            "openai/fake",
            *args,
            env=agent_env(flue_env),
            cwd=cwd,
            transport_kwargs={"stderr": err.fileno()},
            use_unstable_protocol=True,
        ) as (conn, _proc):
            caps = ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal
            )
            init = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=caps,
                    client_info=Implementation(name="tests", version="1"),
                ),
                LIMIT,
            )
            yield conn, client, init
    finally:
        err.close()
