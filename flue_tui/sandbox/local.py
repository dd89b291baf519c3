"""Flue's local() sandbox: the host filesystem plus `bash -c` in its own process group."""

from __future__ import annotations

import asyncio
import codecs
import errno
import functools
import io
import os
import signal as _signal
import subprocess
import threading

from flue_tui.core import files
from flue_tui.core.abort import AbortError, AbortSignal, OutputCallback
from flue_tui.core.jsstr import len16
from flue_tui.core.surrogates import clean
from flue_tui.sandbox import procguard, proctree
from flue_tui.sandbox.base import ExecResult
from flue_tui.sandbox.node_errors import read_error, write_error
from flue_tui.sandbox.tail import StreamTail

MAX_OUTPUT = 64 * 1024 * 1024  # JS string units over stdout + stderr
KILL_GRACE_S = 2.0
# Per-stream tail kept in memory; must exceed the bash tool's 51200-unit window with room to spare.
TAIL_KEEP = 64 * 1024

ENV_ALLOWLIST = procguard.ENV_ALLOWLIST  # decided beside the environ scrub that enforces it

_ENV_TYPE_ERROR = (
    "[flue] local() `env` must be a Record<string, string | undefined>. "
    "To inherit the full host env, pass `env: { ...process.env }`."
)
_shell: str | None = None


def _resolve_shell() -> str:
    """Absolute bash if `bash -c 'command -v bash'` finds one, else /bin/sh; probed once per process."""
    global _shell
    if _shell is None:
        try:
            probe = subprocess.run(  # no provider key in a helper's environment either
                ["bash", "-c", "command -v bash"],
                capture_output=True,
                text=True,
                timeout=10,
                env=clean_env(),
                stdin=subprocess.DEVNULL,
            )
            found = probe.stdout.strip() if probe.returncode == 0 else ""
        except (OSError, subprocess.SubprocessError):
            found = ""
        _shell = found if found.startswith("/") else "/bin/sh"
    return _shell


def clean_env() -> dict[str, str]:
    """The allowlisted part of flue's environment: what every process flue spawns starts from."""
    return {k: os.environ[k] for k in ENV_ALLOWLIST if k in os.environ}


def posix_resolve(base: str, path: str) -> str:
    """Node's path.resolve(base, path) on POSIX: join, then collapse `.`, `..` and repeated slashes."""
    joined = path if path.startswith("/") else f"{base}/{path}"
    parts: list[str] = []
    for seg in joined.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if parts:
                parts.pop()
        else:
            parts.append(seg)
    return "/" + "/".join(parts)


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Group:
    """A child's process group and what left it (its mark, see proctree): SIGTERM on demand,
    SIGKILL after the grace period if still there. While it runs, the reaper knows the group, so
    it is killed if flue dies (see procguard)."""

    def __init__(self, pgid: int, mark: str) -> None:
        self.pgid = pgid
        self.mark = mark
        self._timer: threading.Timer | None = None
        self._group_gone = False  # its pgid may be reused: only the mark is signalled then
        procguard.reaper.watch(pgid)

    def terminate(self) -> None:
        if self._timer is not None:
            return
        _killpg(self.pgid, _signal.SIGTERM)
        proctree.signal_marked(self.mark, _signal.SIGTERM)
        # A thread timer, not loop.call_later: the escalation must happen even if the event
        # loop is closed in the meantime (e.g. the app quits right after cancelling a tool).
        self._timer = threading.Timer(KILL_GRACE_S, self._kill)
        self._timer.daemon = True
        self._timer.start()

    def _kill(self) -> None:
        if not self._group_gone:
            _killpg(self.pgid, _signal.SIGKILL)
        proctree.kill_marked(self.mark)
        procguard.reaper.release(self.pgid)

    def settle(self) -> None:
        """Once the shell has exited: forget the group (what it left running lives on until flue
        exits, when the reaper takes it), and drop a pending SIGKILL once nothing of it is left,
        so a recycled pgid is never hit."""
        if self._timer is None:
            procguard.reaper.release(self.pgid)
            return
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            self._group_gone = True
            if not proctree.signal_marked(self.mark, 0):
                self._timer.cancel()
            procguard.reaper.release(self.pgid)
        except PermissionError:
            pass


class _Run(asyncio.SubprocessProtocol):
    """Decodes both pipes incrementally, feeds the tails, streams chunks and enforces the cap."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_output: OutputCallback | None) -> None:
        self.on_output = on_output
        self.decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in (1, 2)}
        self.tails = {1: StreamTail(TAIL_KEEP), 2: StreamTail(TAIL_KEEP)}
        self.total = 0
        self.overflowed = False
        self.group: _Group | None = None
        self.done: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        text = self.decoders[fd].decode(data)
        if text:
            self._emit(fd, text)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self.decoders:
            text = self.decoders[fd].decode(b"", True)
            if text:
                self._emit(fd, text)

    def connection_lost(self, exc: Exception | None) -> None:
        # Called once the process has exited and both pipes are closed (Node's 'close').
        if not self.done.done():
            self.done.set_result(None)

    def _emit(self, fd: int, text: str) -> None:
        self.tails[fd].feed(text)
        self.total += len16(text)
        if self.on_output is not None:
            try:
                self.on_output("stdout" if fd == 1 else "stderr", text)
            except Exception:  # a broken UI sink must not break the command
                pass
        if not self.overflowed and self.total > MAX_OUTPUT:
            self.overflowed = True
            if self.group is not None:
                self.group.terminate()


class LocalSandbox:
    """Host-backed sandbox with Flue's local() semantics (cwd, env allowlist, process groups)."""

    def __init__(self, cwd: str | None = None, env: dict[str, str | None] | None = None) -> None:
        if env is not None and not isinstance(env, dict):
            raise TypeError(_ENV_TYPE_ERROR)
        self.cwd = posix_resolve(os.getcwd(), cwd) if cwd is not None else os.getcwd()
        procguard.harden()  # before any command can run: flue's /proc entries hold the keys
        base = clean_env()
        for key, value in (env or {}).items():
            if value is None:
                base.pop(key, None)
            else:
                base[key] = value
        self.env: dict[str, str] = base

    def resolve_path(self, path: str) -> str:
        return path if path.startswith("/") else posix_resolve(self.cwd, path)

    # ---- files -------------------------------------------------------------------------

    def open_file(self, path: str, resolved: str, *, write: bool = False, parents: bool = False) -> int:
        """A descriptor of the regular file at `resolved` (`path` as the model gave it); OSError,
        or NotRegular for a FIFO, socket or device. The workspace sandbox overrides this."""
        return files.open_file(resolved, write=write, parents=parents)

    def open_binary(self, path: str) -> io.BufferedIOBase:
        """Open for streaming reads (blocking; call from a worker thread). Node-style errors."""
        resolved = self.resolve_path(path)
        try:
            return os.fdopen(self.open_file(path, resolved), "rb")
        except OSError as err:
            raise read_error(err, resolved) from None

    async def read_bytes(self, path: str) -> bytes:
        return await asyncio.to_thread(self._read_bytes, path)

    async def read_text(self, path: str) -> str:
        data = await asyncio.to_thread(self._read_bytes, path)
        return data.decode("utf-8", "replace")

    def _read_bytes(self, path: str) -> bytes:
        with self.open_binary(path) as f:
            try:
                return f.read()
            except OSError as err:
                raise read_error(err, self.resolve_path(path)) from None

    async def write_text(self, path: str, content: str) -> None:
        await asyncio.to_thread(self._write_text, path, content)

    def _write_text(self, path: str, content: str) -> None:
        resolved = self.resolve_path(path)
        # JS strings may hold lone surrogates; Node writes them as U+FFFD (a split pair as its character).
        data = clean(content).encode("utf-8")
        try:
            self._write_once(path, resolved, data, parents=False)
            return
        except OSError:
            pass
        # Like Flue: create parents only after a failed write, then retry once.
        try:
            self._write_once(path, resolved, data, parents=True)
        except OSError as err:
            raise write_error(err, resolved) from None

    def _write_once(self, path: str, resolved: str, data: bytes, *, parents: bool) -> None:
        with os.fdopen(self.open_file(path, resolved, write=True, parents=parents), "wb") as f:
            f.write(data)

    # ---- processes ---------------------------------------------------------------------

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
        """Run `<shell> -c command`; stream chunks; keep bounded tails; kill the group and what
        left it on stop. With `reap_group`, what the shell leaves running when it exits is
        stopped too."""
        if signal is not None and signal.aborted:
            raise AbortError()
        loop = asyncio.get_running_loop()
        shell = _resolve_shell()
        run = _Run(loop, on_output)
        mark = proctree.new_mark()
        reaper_fd = procguard.reaper.spawn_fd()
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: run,
                shell,
                "-c",
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.resolve_path(cwd) if cwd else self.cwd,
                env={**self.env, proctree.NAME: mark},
                start_new_session=True,
                preexec_fn=functools.partial(procguard.child_setup, os.getpid(), reaper_fd),
            )
        except OSError as err:
            # Node reports spawn failures (e.g. a missing cwd) as `spawn <file> <CODE>`. (An exec
            # failing after child_setup leaves a pid with the reaper, whose pid is unknown here; a
            # group nobody leads any more is a no-op to kill, a reused one needs a new setsid.)
            code = errno.errorcode.get(err.errno or 0)
            return ExecResult("", f"spawn {shell} {code}" if code else str(err), 1)
        finally:
            if reaper_fd is not None:
                os.close(reaper_fd)
        group = run.group = _Group(transport.get_pid(), mark)  # the child leads its own group
        stopped = False  # this adapter killed the group for a timeout or an abort

        def stop() -> None:
            nonlocal stopped
            if not stopped and not run.done.done():
                stopped = True
                group.terminate()

        remove = signal.add_callback(stop) if signal is not None else None
        timer = loop.call_later(max(timeout_ms, 0) / 1000, stop) if timeout_ms is not None else None
        try:
            await asyncio.shield(run.done)
        finally:
            if remove is not None:
                remove()
            if timer is not None:
                timer.cancel()
            if run.done.done():
                if reap_group:  # a background job's lifetime is its shell's: nothing outlives bash_kill
                    group.terminate()
                group.settle()
            else:  # cancelled by our caller: leave nothing running
                stopped = True
                group.terminate()
            transport.close()

        stdout, stderr = run.tails[1].value(), run.tails[2].value()
        if run.overflowed:
            result = ExecResult(
                stdout,
                f"{stderr}\n[flue] local exec output exceeded {MAX_OUTPUT} bytes; process tree killed",
                1,
            )
        else:
            code = transport.get_returncode()
            if code is None or code < 0:  # died from a signal
                code = 124 if stopped else 1
            result = ExecResult(stdout, stderr, code)
        if signal is not None and signal.aborted:
            raise AbortError()
        return result
