"""Socket reads of the direct path, at most one per READ_EVERY once a response streams fast.

A provider streams one event per token. At 2,000 tokens a second each event arrives on its own, and
reading them one by one costs the event loop a wake-up and httpcore/anyio a read each: ~0.15 ms of
CPU per token, ~30 % of a core before any of flue's own work (bench/tui.py --part stream). Nothing
shows a token sooner than the front ends' flush (66 ms) or a reader's eye, so once a response's
reads come faster than READ_EVERY the next read waits out the rest of it and the kernel gathers
what arrived meanwhile into one read: the same bytes, in the same order, ~10× fewer reads.

The first reads after each request (the status line, the first token) are never held, nor a read
after one of BURST bytes or more (a burst, as from a proxy that buffered a whole reply), and a slow
stream (one read per READ_EVERY or less) is read exactly as before. httpcore lets a connection pool
take its own network backend; this one wraps the backend the pool already had.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

READ_EVERY = 0.010  # seconds between reads of a fast stream: ~100 reads a second at most
BURST = 16 << 10  # bytes in one read past what 10 ms of any token stream brings (~4 KiB at 2,000 tok/s)
_FREE_READS = 2  # reads after each write that never wait: the response's head and its first event


class CoalescedStream:
    """An httpcore AsyncNetworkStream whose reads, past the first after a write, come at most one
    per READ_EVERY."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._free = _FREE_READS
        self._last = 0.0  # monotonic time the last read returned

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._free > 0:
            self._free -= 1
        else:
            wait = self._last + READ_EVERY - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        try:
            data = await self._stream.read(max_bytes, timeout)
        finally:
            self._last = time.monotonic()
        if len(data) >= BURST:  # not a token stream's trickle: more is waiting, the next is not held
            self._free = max(self._free, 1)
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._free = _FREE_READS  # a new request: its answer's first reads are not held
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> Any:
        return CoalescedStream(await self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class CoalescedBackend:
    """An httpcore AsyncNetworkBackend handing out CoalescedStreams."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> CoalescedStream:
        return CoalescedStream(await self._backend.connect_tcp(*args, **kwargs))

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> CoalescedStream:
        return CoalescedStream(await self._backend.connect_unix_socket(*args, **kwargs))

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def coalesce(client: Any) -> bool:
    """Give every connection pool of an httpx.AsyncClient (its own and the proxies' it mounted from
    the environment) the coalescing backend. Returns whether every pool took it: these are httpx's
    and httpcore's attributes, not their API, so a release that renames them leaves the client as
    it was (reading every event as it comes) rather than broken; tests/model pins that they hold."""
    own, mounts = getattr(client, "_transport", None), getattr(client, "_mounts", None)
    if own is None or not isinstance(mounts, dict):
        return False
    every = True
    for transport in (own, *(t for t in mounts.values() if t is not None)):  # None: "no proxy here"
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            every = False
        elif not isinstance(backend, CoalescedBackend):
            pool._network_backend = CoalescedBackend(backend)  # pyright: ignore[reportOptionalMemberAccess]
    return every
