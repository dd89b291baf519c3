"""Running one command hook: `sh -c COMMAND` with Claude Code's JSON on stdin, in the session's
directory, in its own process group, bounded in time and output.

A hook is the user's own program, but what it prints is not to be trusted with flue's memory or
terminal: stdout and stderr are kept to LIMIT bytes each (the rest is read and dropped, so the
hook never blocks on a full pipe), decoded with replacement characters. At its timeout, the hook
and everything it started (its process group, and what left it: proctree's mark) are killed and
its pipes are no longer read, whoever holds them (a hook whose child still holds its output has
not finished, as in Claude Code). That is a failure of the hook, reported in one line, never a
hang of the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Any

from flue_tui.hooks.config import Hook
from flue_tui.sandbox import procguard, proctree

LIMIT = 64 * 1024


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


class _Output(asyncio.SubprocessProtocol):
    """A hook's stdout and stderr, each kept to LIMIT bytes (the rest read and dropped), and when
    its own process exited and when every holder of its pipes let go."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.kept = {1: bytearray(), 2: bytearray()}
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        keep = self.kept.get(fd)
        if keep is not None and len(keep) < LIMIT:
            keep += data[: LIMIT - len(keep)]

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:  # exited, and both pipes closed
        if not self.closed.done():
            self.closed.set_result(None)


def _kill(pgid: int, mark: str) -> None:
    """The hook's group, and what left it (`setsid`, daemons, re-parented children: proctree)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    proctree.kill_marked(mark)


async def run_hook(hook: Hook, payload: dict[str, Any], cwd: str) -> Ran:
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace")
    mark = proctree.new_mark()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": cwd, proctree.NAME: mark}
    loop = asyncio.get_running_loop()
    output = _Output(loop)
    # Under procguard like every command flue runs: if flue dies (kill -9 included), nobody would
    # enforce the timeout, so the hook and its group die with it (PR_SET_PDEATHSIG, the reaper).
    reaper_fd = procguard.reaper.spawn_fd()
    try:
        transport, _ = await loop.subprocess_exec(
            lambda: output,
            "/bin/sh",
            "-c",
            hook.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
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
    pgid = transport.get_pid()
    procguard.reaper.watch(pgid)
    try:
        return await _finish(hook, transport, output, data, mark)
    finally:
        transport.close()
        procguard.reaper.release(pgid)


async def _finish(hook: Hook, transport: asyncio.SubprocessTransport, output: _Output, data: bytes, mark: str) -> Ran:
    stdin = transport.get_pipe_transport(0)
    if isinstance(stdin, asyncio.WriteTransport):
        stdin.write(data)  # buffered by the transport; a hook that never reads just loses it
        stdin.close()
    try:
        # The wait is for the pipes, not the process: a child still writing to them is the hook's.
        await asyncio.wait_for(asyncio.shield(output.closed), hook.timeout)
    except TimeoutError:
        pass
    except asyncio.CancelledError:
        _kill(transport.get_pid(), mark)
        raise
    if not output.closed.done():
        # Past the timeout the pipes are not waited for any more, whoever holds them: the hook's
        # group and everything marked as its own are killed, and reading stops.
        await asyncio.to_thread(_kill, transport.get_pid(), mark)
        transport.close()
        await output.exited
        return Ran(hook, None, failure=f"{label(hook)} timed out after {hook.timeout:g}s and was stopped")
    code = transport.get_returncode()
    out, err = (output.kept[fd].decode("utf-8", "replace") for fd in (1, 2))
    return Ran(hook, code, out, err)
