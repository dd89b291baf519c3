"""The relay's own process: the direct path's HTTP client, on a core beside the front end's.

Run by relay.py (`python -P -c BOOT FD URL PID`: -P, a cloned repository's `httpx.py` in the
working directory is never imported; BOOT hardens it before anything else). FD is its end of a
socket pair with flue: flue sends one descriptor per request over it (SCM_RIGHTS), a socket of its
own pair, and the request and its answer travel on that socket alone (relay.py describes the
frames), so one slow reader never holds another's stream back and closing it cancels the request.
When flue's end closes (flue exited), the relay exits; killed (SIGKILL), PDEATHSIG takes it along.

It holds provider keys while a request runs, so it is hardened like flue (sandbox/procguard.py):
non-dumpable, its /proc entries out of the commands' reach; its environment holds no key.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from typing import Any

from flue_tui.model.relay import FRAME, HEAD, PIECE

MAX_HEAD = 1 << 20  # a request's head (url, headers): far past any real one


def _frame(kind: bytes, payload: bytes) -> bytes:
    return FRAME.pack(kind, len(payload)) + payload


class Relay:
    def __init__(self) -> None:
        from flue_tui.model import transport  # httpx and its SSL context, imported once, here

        self.transport = transport
        self.clients: dict[bool, Any] = {}  # keyed by plain http: a TLS client verifies, the other cannot

    def client(self, url: str) -> Any:
        plain = url.startswith("http://")
        if plain not in self.clients:
            self.clients[plain] = self.transport.new_client(600.0, url)
        return self.clients[plain]

    async def serve(self, sock: socket.socket) -> None:
        reader, writer = await asyncio.open_unix_connection(sock=sock)
        try:
            size = HEAD.unpack(await reader.readexactly(HEAD.size))[0]
            if size > MAX_HEAD:
                raise ValueError("a head past its bound")
            head = json.loads(await reader.readexactly(size))
            body = await reader.readexactly(int(head["length"]))
        except (asyncio.IncompleteReadError, ValueError, KeyError, TypeError, OSError):
            writer.close()  # not flue's request: flue reads the end without a frame as the relay failing
            return
        answer: list[Any] = []  # the provider's response, once it has one
        forward = asyncio.create_task(self._forward(head, body, writer, answer))

        async def watch() -> None:  # flue closed its end: the request is cancelled
            try:
                await reader.read(1)
            except OSError:
                pass
            forward.cancel()

        watcher = asyncio.create_task(watch())
        try:
            await asyncio.wait([forward])
        finally:
            watcher.cancel()
            # Closed here, in a task nothing cancels. Begun in the forward task, a close could take
            # the watch's cancel half-way (flue's going seen twice: a failed write there, the end
            # here) and leave the provider's connection open, its stream still coming.
            if answer:
                await answer[0].aclose()
            writer.close()

    async def _forward(
        self, head: dict[str, Any], body: bytes, writer: asyncio.StreamWriter, answer: list[Any]
    ) -> None:
        http = self.transport.httpx()
        client = self.client(head["url"])
        try:
            request = client.build_request(
                "POST",
                head["url"],
                headers=[(str(k), str(v)) for k, v in head["headers"]],
                content=body,
                timeout=http.Timeout(float(head["timeout"])),
            )
            response = await client.send(request, stream=True)
            answer.append(response)
            status = {"status": response.status_code, "headers": list(response.headers.multi_items())}
            writer.write(_frame(b"H", json.dumps(status).encode()))
            await writer.drain()
            async for piece in response.aiter_bytes():  # decoded, as the in-process client reads it
                for at in range(0, len(piece), PIECE):  # a decoded piece can be large (a gzip bomb's)
                    writer.write(_frame(b"D", piece[at : at + PIECE]))
                    await writer.drain()  # flue reads as it folds: the provider waits for it, not memory
            writer.write(_frame(b"Z", b""))
            await writer.drain()
        except Exception as exc:
            kind, text = self.transport.failure(exc)  # worded by flue's DirectClient, as in process
            try:
                writer.write(_frame(b"E", json.dumps({"kind": kind, "text": text}).encode()))
                await writer.drain()
            except OSError:
                pass  # flue is not listening any more


async def main(fd: int, url: str) -> None:
    control = socket.socket(fileno=fd)
    relay = Relay()
    relay.transport.warm(url)  # what a first request would import and load (its TLS context)
    relay.client(url)
    control.sendall(b"R")  # ready: flue's first request waits for this (bounded) instead of importing httpx
    control.setblocking(False)
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    requests: set[asyncio.Task[None]] = set()

    def readable() -> None:
        try:
            data, fds, _flags, _addr = socket.recv_fds(control, 64, 16)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        for each in fds:
            task = loop.create_task(relay.serve(socket.socket(fileno=each)))
            requests.add(task)
            task.add_done_callback(requests.discard)
        if not data and not done.done():
            done.set_result(None)  # flue is gone

    loop.add_reader(control.fileno(), readable)
    await done


def run() -> None:
    """After relay.py's boot line has hardened the process (procguard) and bound it to flue's life."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl+C is flue's to handle
    try:
        asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
    except BaseException:
        pass
    os._exit(0)  # nothing to tear down: no buffered output, no state
