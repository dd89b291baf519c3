"""The Sandbox protocol: where tools read, write and run commands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from flue_tui.core.abort import AbortSignal, OutputCallback


@dataclass(frozen=True, slots=True)
class ExecResult:
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
    ) -> ExecResult:
        """Run `command` in the shell; stream chunks to on_output; keep only bounded output."""
        ...
