"""The relay: the direct path's HTTP client in a process of its own, beside a front end's.

Why: under one interpreter lock, nothing a front end does overlaps. A prompt given at launch waited
for the app's first frame, then for the session's start, then for httpx's set-up (~90 ms of CPU,
imports the frame does not need), and a fast stream's HTTP parsing shared the UI's core. The app
and inline mode start the relay (`start`, from the `flue` entry, before they import their UI) so it
imports httpx on the second core while the UI draws; the UI process then never imports httpx for
a model request, and reads each answer as frames from a socket. `flue -p` and ACP, with no frame
to overlap, keep the client in process (a second interpreter would only add CPU).

The frames, on a socket pair made per request (its far end handed to the relay with SCM_RIGHTS):
flue writes a 4-byte big-endian head length, the head as JSON (`url`, `headers`, `timeout`,
`length`) and `length` bytes of body. The relay answers with frames of a kind byte and a 4-byte
length: `H` (status and headers, JSON), `D` (a piece of the decoded body), then `Z` (the end) or
`E` (a failure, JSON `kind` connect/transport/other and `text`). Closing the socket cancels.

Anything wrong with the relay leaves the in-process client in charge: it failed to start or to
answer that it is ready within READY_S, or died (a request it held then ends as a connection
error, which the agent loop retries, in process). `FLUE_RELAY=off` keeps every request in process.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from typing import Any

READY_S = 10.0  # its imports take ~0.15 s of CPU; a loaded machine may take many times that
MAX_FRAME = 16 << 20  # the relay sends body pieces of at most PIECE: past this it is not the relay
PIECE = 256 << 10
HEAD = struct.Struct(">I")  # the frames' layout, for both ends (relay_main.py imports them)
FRAME = struct.Struct(">cI")

# What the relay's HTTP client reads from the environment (httpx with trust_env: proxies, its
# certificate locations, ~/.netrc, the TLS key log); nothing else reaches it, provider keys above
# all: they travel in each request's headers.
# And where Python finds flue's modules, as flue itself found them.
_ENV = (
    *("HOME", "NETRC", "SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE", "LANG", "LC_ALL", "LC_CTYPE", "TZ"),
    *("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONDONTWRITEBYTECODE"),
    "PYTHONPYCACHEPREFIX",
)


class RelayFailure(Exception):
    """A request through the relay failed: `kind` is connect, transport or other."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self.kind = kind
        self.text = text


class Response:
    """The answer to one relayed request, read as direct_client.py reads httpx's."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: dict[str, Any]) -> None:
        self._reader, self._writer = reader, writer
        self.status_code = int(head["status"])
        headers: dict[str, str] = {}
        for name, value in head["headers"]:
            name = str(name).lower()
            headers[name] = f"{headers[name]}, {value}" if name in headers else str(value)  # as httpx joins them
        self.headers = headers

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        while True:
            kind, payload = await _frame(self._reader)
            if kind == b"D":
                yield payload
            elif kind == b"Z":
                return
            else:
                raise _failure(kind, payload)

    async def aclose(self) -> None:
        self._writer.close()  # the relay sees the end and cancels what is left of the request


class Relay:
    def __init__(self, proc: subprocess.Popen[bytes], control: socket.socket) -> None:
        self.proc = proc
        self.control = control
        self._state = "starting"  # → ready or gone
        self._lock = threading.Lock()

    def alive(self) -> bool:
        if self._state != "gone" and (self.proc.poll() is not None or _stopped(self.proc.pid)):
            self.abandon()
        return self._state != "gone"

    def abandon(self) -> None:
        """Never asked again: stopped, wedged or broken. Killed, so a stopped one is no orphan."""
        self.stop()
        try:
            self.proc.kill()
        except OSError:
            pass

    def _wait_ready(self) -> bool:
        """Blocking: its ready byte, at most READY_S away. Once, whoever asks first."""
        with self._lock:
            if self._state == "starting":
                try:
                    readable, _, _ = select.select([self.control], [], [], READY_S)
                    ok = bool(readable) and self.control.recv(1) == b"R"
                except OSError:
                    ok = False
                self._state = "ready" if ok else "gone"
                if not ok:
                    self.abandon()
            return self._state == "ready" and self.alive()

    def _ready_now(self) -> bool:
        """On the loop, never blocking: whether its ready byte has come (it has, by the first prompt,
        as a rule: a thread to wait for it cost that prompt 4-10 ms)."""
        if not self._lock.acquire(blocking=False):
            return False  # a thread is waiting for it
        try:
            if self._state == "starting" and select.select([self.control], [], [], 0)[0]:
                self._state = "ready" if self.control.recv(1) == b"R" else "gone"
        except OSError:
            self._state = "gone"
        finally:
            self._lock.release()
        if self._state == "gone":
            self.abandon()
        return self._state == "ready"

    async def usable(self) -> bool:
        if self._state == "ready":
            return self.alive()
        if not self.alive():
            return False
        return self._ready_now() or await asyncio.to_thread(self._wait_ready)

    async def send(self, url: str, headers: Mapping[str, str], body: bytes, timeout: float) -> Response | None:
        """The request, sent through the relay; None when it cannot take it (nothing was sent)."""
        if not await self.usable():
            return None
        ours, theirs = socket.socketpair()
        try:
            with self._lock:  # never blocks the loop: a relay that stopped reading is given up
                socket.send_fds(self.control, [b"q"], [theirs.fileno()], socket.MSG_DONTWAIT)
        except OSError:
            ours.close()
            self.abandon()
            return None
        finally:
            theirs.close()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        head = json.dumps({"url": url, "headers": list(headers.items()), "timeout": timeout, "length": len(body)})
        try:
            try:
                writer.write(HEAD.pack(len(head)) + head.encode() + body)
                await writer.drain()
            except OSError as exc:  # it died (or broke) before reading the request
                self.abandon()
                raise RelayFailure("connect", "The relay is gone.") from exc
            kind, payload = await _frame(reader)
            if kind != b"H":
                raise _failure(kind, payload)
            return Response(reader, writer, json.loads(payload))
        except BaseException:
            writer.close()
            raise

    def stop(self) -> None:
        try:
            self.control.close()  # its end reads EOF: it exits
        except OSError:
            pass
        self._state = "gone"


async def _frame(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    try:
        kind, size = FRAME.unpack(await reader.readexactly(FRAME.size))
        if size > MAX_FRAME:
            raise RelayFailure("transport", "The relay sent a frame past its bound.")
        return kind, await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionError) as exc:
        # It always ends a request with a frame: without one it died (or broke), whatever the
        # provider did. A live one that closed unasked is not trusted with another request.
        if _current is not None:
            _current.abandon()
        raise RelayFailure("relay", "The relay ended during the request.") from exc


def _failure(kind: bytes, payload: bytes) -> RelayFailure:
    if kind == b"E":
        try:
            data = json.loads(payload)
            return RelayFailure(str(data["kind"]), str(data["text"]))
        except (ValueError, KeyError, TypeError):
            pass
    return RelayFailure("transport", "The relay sent a frame it should not have.")


# Hardened (non-dumpable, its environment block scrubbed) and bound to flue's life (PDEATHSIG) before
# it imports anything else; then relay_main runs. argv: the control socket's fd, the URL, flue's pid.
_BOOT = (
    "import sys; from flue_tui.sandbox import procguard; procguard.harden(); procguard.child_setup(int(sys.argv[3]))"
    "; from flue_tui.model.relay_main import run; run()"
)
RELAYED = "the app and inline mode send from a process beside the UI (FLUE_RELAY=off: from flue's own)"
_current: Relay | None = None
_start_lock = threading.Lock()


def _stopped(pid: int) -> bool:
    """SIGSTOP'd (or traced): it would hold every request until the idle timeout. Linux's /proc;
    elsewhere never."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state in (b"T", b"t")


def wanted(environ: Mapping[str, str] = os.environ) -> bool:
    return environ.get("FLUE_RELAY", "").strip().lower() not in ("off", "0", "no", "false")


def start(url: str, environ: Mapping[str, str] = os.environ) -> None:
    """Spawn the relay if none runs (the front ends, for a direct-path model whose requests go to
    `url`, the endpoint it warms for). Never raises: without a relay, requests go in process."""
    global _current
    with _start_lock:
        if (_current is not None and _current.alive()) or not wanted(environ):
            return
        ours = theirs = None
        try:
            ours, theirs = socket.socketpair()
            env = {k: v for k, v in environ.items() if k in _ENV or k.lower().endswith("_proxy")}
            if "PYTHONPATH" in env:  # an empty or relative entry is the working directory: a repository's modules
                env["PYTHONPATH"] = os.pathsep.join(p for p in env["PYTHONPATH"].split(os.pathsep) if os.path.isabs(p))
            proc = subprocess.Popen(
                [sys.executable, "-P", "-c", _BOOT, str(theirs.fileno()), url, str(os.getpid())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # not in the terminal's process group: its keys are flue's
            )
        except (OSError, ValueError, subprocess.SubprocessError):
            if ours is not None:
                ours.close()
            return
        finally:
            if theirs is not None:
                theirs.close()
        _current = Relay(proc, ours)


def current() -> Relay | None:
    """The running relay, if any (a dead one reads as none)."""
    return _current if _current is not None and _current.alive() else None


def stop() -> None:
    """For tests (a front end never calls it: its exit closes the control socket, and PDEATHSIG
    covers a kill): the relay exits once its control socket closes."""
    global _current
    with _start_lock:
        if _current is not None:
            _current.stop()
            try:
                _current.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                _current.proc.kill()
        _current = None
