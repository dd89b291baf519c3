"""The Sandbox protocol: where tools read, write and run commands."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from flue_tui.core.abort import AbortSignal, OutputCallback


@dataclass(frozen=True, slots=True)
class ExecResult:
    """How a command run in the sandbox ended: its output and its exit code."""

    stdout: str
    stderr: str
    exit_code: int


class Sandbox(Protocol):
    cwd: str

    def resolve_path(self, path: str) -> str:
        """Relative paths join cwd; absolute paths pass through unchanged (Flue's local())."""
        ...

    async def read_text(self, path: str) -> str: ...

    async def read_bytes(self, path: str) -> bytes: ...

    async def write_text(self, path: str, content: str) -> None: ...

    async def exec(
        self,
        command: str,
        *,
        timeout_ms: float | None = None,
        signal: AbortSignal | None = None,
        on_output: OutputCallback | None = None,
        cwd: str | None = None,
        reap_group: bool = False,
    ) -> ExecResult:
        """Run `command` in the shell; stream chunks to on_output; keep only bounded output.
        `reap_group`: stop what the shell left running in its process group once it exits."""
        ...


@runtime_checkable
class StreamingReads(Protocol):
    """A sandbox that can hand `read` a file to stream (blocking; used from a worker thread), so a
    huge file is never loaded whole. Sandboxes without it are read through `read_bytes`."""

    def open_binary(self, path: str) -> io.BufferedIOBase: ...
