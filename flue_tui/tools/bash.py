"""The `bash` tool: run a command in the sandbox and format it like Flue's formatBashResult."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from flue_tui.core.abort import AbortError, AbortSignal
from flue_tui.core.details import BashDetails
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import Sandbox
from flue_tui.tools.base import (
    MAX_READ_BYTES,
    MAX_READ_LINES,
    ToolContext,
    ToolResult,
    prop,
    schema,
)
from flue_tui.tools.locks import check_abort
from flue_tui.tools.truncate import js_number, js_trim, truncate_tail


def format_bash_text(stdout: str, stderr: str, exit_code: int) -> str:
    """The model-visible text of a finished command (tail-truncated, no truncation notice)."""
    combined = js_trim(stdout + ("\n" + stderr if stderr else ""))
    output, _ = truncate_tail(combined, MAX_READ_LINES, MAX_READ_BYTES)
    if exit_code == 0:
        return output or "(no output)"
    return f"{output or '(no output)'}\n\nCommand exited with code {exit_code}"


class BashTool:
    name = "bash"
    label = "Run Command"
    traits = ToolTraits(kind="execute", subject="command", details=BashDetails, shell=True)
    description = (
        "Execute a bash command. Returns stdout and stderr. Output is truncated to the last 2000 lines or 50KB."
    )
    parameters = schema(
        {
            "command": prop("string", "Bash command to execute"),
            "timeout": prop("number", "Timeout in seconds"),
        },
        ["command"],
    )

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_abort(ctx.signal)
        command: str = args["command"]
        raw_timeout = args.get("timeout")
        # A bool is an int to Python but not a number to the schema; it means no timeout.
        timeout: float | None = None
        if isinstance(raw_timeout, int | float) and not isinstance(raw_timeout, bool):
            timeout = raw_timeout
        ran = await self.run(command, timeout, ctx)
        return ToolResult(
            format_bash_text(ran.stdout, ran.stderr, ran.exit_code),
            BashDetails(command, ran.exit_code, ran.duration_ms),
        )

    async def run(self, command: str, timeout: float | None, ctx: ToolContext) -> Ran:
        """Run one command in the sandbox: the model's calls and the user's `!command`
        (agent/usershell.py) both come through here. Raises AbortError when the host aborts."""
        timeout_ms = timeout * 1000 if timeout is not None else None
        # Like Flue: a tool-owned timeout signal merged with the host signal, so a timeout can be
        # told apart from a host abort whichever way exec ends.
        merged = AbortSignal()
        timed_out = AbortSignal()
        remove = ctx.signal.add_callback(merged.abort)
        timer = None
        if timeout_ms is not None:

            def fire() -> None:
                timed_out.abort()
                merged.abort()

            timer = asyncio.get_running_loop().call_later(max(timeout_ms, 0) / 1000, fire)
        started = time.monotonic()
        try:
            result = await self.sandbox.exec(command, timeout_ms=timeout_ms, signal=merged, on_output=ctx.on_output)
        except AbortError:
            if timeout is not None and timed_out.aborted and not ctx.signal.aborted:
                return _timed_out(timeout, started)
            raise
        finally:
            remove()
            if timer is not None:
                timer.cancel()
        if timeout is not None and timed_out.aborted and not ctx.signal.aborted:
            return _timed_out(timeout, started)
        return Ran(result.stdout, result.stderr, result.exit_code, _ms(started))


@dataclass(frozen=True, slots=True)
class Ran:
    """A finished command: its (bounded) output, exit code and how long it ran."""

    stdout: str
    stderr: str
    exit_code: int
    duration_ms: int


def _timed_out(timeout: float, started: float) -> Ran:
    return Ran("", f"[flue] Command timed out after {js_number(timeout)} seconds.", 124, _ms(started))


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
