"""Running one command hook: `sh -c COMMAND` with Claude Code's JSON on stdin, in the session's
directory, in its own process group, bounded in time and output.

A hook is the user's own program, but what it prints is not to be trusted with flue's memory or
terminal: stdout and stderr are kept to LIMIT bytes each (the rest is read and dropped, so the
hook never blocks on a full pipe), decoded with replacement characters. A hook that outlives its
timeout (or leaves a child holding its pipes) has its whole process group killed; that is a
failure of the hook, reported in one line, never a hang of the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
from dataclasses import dataclass
from typing import Any

from flue_tui.hooks.config import Hook
from flue_tui.sandbox import procguard

LIMIT = 64 * 1024
_CHUNK = 16 * 1024


@dataclass(frozen=True, slots=True)
class Ran:
    hook: Hook
    code: int | None  # None: it did not finish (timed out, could not start)
    stdout: str = ""
    stderr: str = ""
    failure: str | None = None  # one line, when the hook itself failed

    @property
    def ok(self) -> bool:
        return self.failure is None


def label(hook: Hook) -> str:
    """The hook as one short line names it."""
    if hook.callback is not None:
        return f"{hook.event} SDK hook {hook.callback} ({hook.origin})"
    command = " ".join(hook.command.split())
    short = command if len(command) <= 60 else command[:59] + "…"
    return f"{hook.event} hook `{short}` ({hook.origin})"


async def _drain(stream: asyncio.StreamReader | None, keep: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(_CHUNK):
        room = LIMIT - len(keep)
        if room > 0:
            keep += chunk[:room]


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


async def run_hook(hook: Hook, payload: dict[str, Any], cwd: str) -> Ran:
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace")
    env = {**os.environ, "CLAUDE_PROJECT_DIR": cwd}
    # Under procguard like every command flue runs: if flue dies (kill -9 included), nobody would
    # enforce the timeout, so the hook and its group die with it (PR_SET_PDEATHSIG, the reaper).
    reaper_fd = procguard.reaper.spawn_fd()
    try:
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            hook.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,  # its own group: a timeout kills what it started too
            preexec_fn=functools.partial(procguard.child_setup, os.getpid(), reaper_fd),
        )
    except OSError as exc:
        return Ran(hook, None, failure=f"{label(hook)} could not start: {exc.strerror or exc}")
    finally:
        if reaper_fd is not None:
            os.close(reaper_fd)
    procguard.reaper.watch(proc.pid)
    try:
        return await _finish(hook, proc, data)
    finally:
        procguard.reaper.release(proc.pid)


async def _finish(hook: Hook, proc: asyncio.subprocess.Process, data: bytes) -> Ran:
    out, err = bytearray(), bytearray()

    async def feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(data)
            await proc.stdin.drain()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.close()

    work = asyncio.gather(feed(), _drain(proc.stdout, out), _drain(proc.stderr, err), proc.wait())
    try:
        await asyncio.wait_for(work, hook.timeout)
    except TimeoutError:
        _kill(proc)
        with contextlib.suppress(Exception):
            await proc.wait()
        return Ran(hook, None, failure=f"{label(hook)} timed out after {hook.timeout:g}s and was stopped")
    except asyncio.CancelledError:
        _kill(proc)
        raise
    return Ran(hook, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
