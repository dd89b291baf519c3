"""A fast stream's socket reads, gathered (model/coalesce.py), and the one timer that bounds a
stream's silences (failures.IdleBounded): the same bytes in the same order, fewer reads, the first
reads after a request never held, and a silence, a slow consumer or an outside cancel each what
it was before."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator

import pytest
from httpcore._backends.anyio import AnyIOBackend

from flue_tui.model import coalesce, transport
from flue_tui.model.base import ModelError, TurnResponse
from flue_tui.model.direct_client import DirectClient
from flue_tui.model.failures import IdleBounded
from flue_tui.model.route import route
from tests.fakellm import Call, Turn
from tests.model.conftest import SONNET

GPT = "openai/gpt-4.1"

PIECES = 300


def _server(pieces: int, gap: float) -> tuple[socket.socket, threading.Thread]:
    """A TCP server that, once the client writes a line, sends `pieces` numbered lines one by one."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(100)
            for i in range(pieces):
                conn.sendall(b"%05d\n" % i)
                time.sleep(gap)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


class Counted(coalesce.CoalescedStream):
    reads = 0

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.reads += 1
        return await super().read(max_bytes, timeout)


async def _read_all(listener: socket.socket) -> tuple[bytes, int, float]:
    raw = await AnyIOBackend().connect_tcp("127.0.0.1", listener.getsockname()[1])
    stream = Counted(raw)
    await stream.write(b"go\n")
    started = time.monotonic()
    data = b""
    while piece := await stream.read(65536):
        data += piece
    elapsed = time.monotonic() - started
    await stream.aclose()
    return data, stream.reads, elapsed


def test_a_fast_stream_is_read_whole_in_order_and_at_most_once_per_interval(monkeypatch) -> None:
    monkeypatch.setattr(coalesce, "READ_EVERY", 0.05)
    listener, thread = _server(PIECES, 0.001)
    with listener:
        data, reads, elapsed = asyncio.run(_read_all(listener))
    thread.join()
    assert data == b"".join(b"%05d\n" % i for i in range(PIECES))
    # Two free reads, then one per interval at most, whatever the machine's load made the
    # sending take (the final read, the empty one, included).
    assert reads <= 2 + elapsed / 0.05 + 2
    assert reads < PIECES / 3


def test_the_first_reads_after_a_request_are_not_held(monkeypatch) -> None:
    # An interval no test would wait out: the head and the first event still come at once, after
    # the first request and after the next one on the same connection.
    monkeypatch.setattr(coalesce, "READ_EVERY", 3600.0)
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            for _ in range(2):
                conn.recv(100)
                conn.sendall(b"head\n")
                time.sleep(0.05)
                conn.sendall(b"first\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    async def exchange() -> list[bytes]:
        raw = await AnyIOBackend().connect_tcp("127.0.0.1", listener.getsockname()[1])
        stream = coalesce.CoalescedStream(raw)
        got = []
        for _ in range(2):
            await stream.write(b"ask\n")
            seen = b""
            while seen.count(b"\n") < 2:
                seen += await asyncio.wait_for(stream.read(65536), 60)
            got.append(seen)
        await stream.aclose()
        return got

    with listener:
        assert asyncio.run(exchange()) == [b"head\nfirst\n", b"head\nfirst\n"]
    thread.join()


def test_a_read_after_a_burst_is_not_held(monkeypatch) -> None:
    # A read of BURST bytes or more is no token stream's trickle: the one after it is not held, so
    # 4 MiB sent at once (a proxy that buffered a whole reply) is not read 64 KiB per interval.
    listener = socket.create_server(("127.0.0.1", 0))
    burst = bytes(range(256)) * (16 << 10)  # 4 MiB

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(100)
            conn.sendall(burst)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    waits: list[tuple[int, bool]] = []  # (bytes of the read before, whether this read waited)

    class Watched(coalesce.CoalescedStream):
        async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            held = self._free == 0 and self._last + coalesce.READ_EVERY > time.monotonic()
            waits.append((self.before, held))
            data = await super().read(max_bytes, timeout)
            self.before = len(data)
            return data

    async def exchange() -> bytes:
        raw = await AnyIOBackend().connect_tcp("127.0.0.1", listener.getsockname()[1])
        stream = Watched(raw)
        stream.before = 0
        await stream.write(b"ask\n")
        seen = b""
        while len(seen) < len(burst):
            seen += await stream.read(65536)
        await stream.aclose()
        return seen

    with listener:
        assert asyncio.run(exchange()) == burst
    thread.join()
    assert not [before for before, held in waits if held and before >= coalesce.BURST]
    assert sum(1 for before, _ in waits if before >= coalesce.BURST) > 0  # there were bursts to follow


def test_every_pool_of_the_client_takes_the_coalescing_backend(monkeypatch) -> None:
    # Its own and the proxies' it mounts from the environment: these are httpx's and httpcore's
    # attributes, so this pins that the locked releases still have them.
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "localhost")
    client = transport.new_client(5.0, "https://api.openai.com/v1/chat/completions")
    pools = [client._transport._pool, *(t._pool for t in client._mounts.values() if t is not None)]
    assert len(pools) >= 2
    assert all(isinstance(pool._network_backend, coalesce.CoalescedBackend) for pool in pools)
    assert coalesce.coalesce(client)  # again: nothing wrapped twice
    assert not isinstance(client._transport._pool._network_backend._backend, coalesce.CoalescedBackend)


def test_a_client_without_those_attributes_is_left_as_it_was() -> None:
    class Other:
        pass

    assert coalesce.coalesce(Other()) is False


# -- IdleBounded ------------------------------------------------------------------------------------
async def _paced(gaps: list[float]) -> AsyncIterator[int]:
    for i, gap in enumerate(gaps):
        await asyncio.sleep(gap)
        yield i


def test_a_silence_longer_than_the_bound_is_the_idle_timeout() -> None:
    async def run() -> str:
        bounded = IdleBounded(_paced([0, 3600]), 0.2)
        try:
            async for _ in bounded:
                pass
        except Exception as exc:
            return str(exc)
        finally:
            bounded.close()
        return "no timeout"

    assert asyncio.run(run()) == "The provider sent nothing for 0.2 s: the request timed out (idle timeout)."


def test_a_slow_consumer_is_not_the_providers_silence() -> None:
    # Each chunk is there at once; the consumer takes longer than the bound between them.
    async def run() -> list[int]:
        got = []
        bounded = IdleBounded(_paced([0, 0, 0]), 0.1)
        async for i in bounded:
            got.append(i)
            await asyncio.sleep(0.3)
        return got

    assert asyncio.run(run()) == [0, 1, 2]


def test_an_outside_cancel_while_waiting_stays_a_cancel() -> None:
    async def run() -> tuple[bool, int]:
        bounded = IdleBounded(_paced([3600]), 3600)

        async def consume() -> None:
            async for _ in bounded:
                pass

        task = asyncio.ensure_future(consume())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled(), task.cancelling()

    assert asyncio.run(run()) == (True, 1)


def test_a_stream_left_early_stops_its_timer() -> None:
    # Read one chunk and leave: after close() no timer of this stream is left on the loop (one would
    # re-arm itself every bound for as long as the session's loop runs).
    async def run() -> tuple[int, int]:
        bounded = IdleBounded(_paced([0, 3600]), 0.1)
        async for _ in bounded:
            break
        loop = asyncio.get_running_loop()

        def ours() -> int:
            scheduled = loop._scheduled  # type: ignore[attr-defined]
            return sum(1 for h in scheduled if not h.cancelled() and getattr(h._callback, "__self__", None) is bounded)

        before = ours()
        bounded.close()
        await asyncio.sleep(0.3)
        return before, ours()

    assert asyncio.run(run()) == (1, 0)


# -- the direct path, end to end against the stand-ins ----------------------------------------------
def _direct(wire: str, server) -> DirectClient:
    model = GPT if wire == "openai" else SONNET
    base = {"api_base": server.base_url} if wire == "openai" else {}
    env = {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_API_BASE": server.base_url}
    return DirectClient(model, route=route(model, base.get("api_base"), environ=env), api_key="sk-test", **base)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_cancel_in_the_coalescing_wait_is_a_cancel_and_the_next_turn_reads_its_own_reply_whole(
    request, monkeypatch, wire
) -> None:
    """Esc while the stream is held (a read waiting out the interval, or the socket): a plain
    cancel (no idle-timeout error), and the connection is not handed to the next turn half-read:
    that turn, a tool call, reads its own. The interval turns long only once a first event is in:
    how the head and the first events split into reads is the kernel's (on a loaded machine the
    first text could need a third read), and the wait itself is pinned below."""
    server = request.getfixturevalue("fakellm" if wire == "openai" else "fakeanthropic")
    hold = threading.Event()
    server.script(
        [
            Turn(text=" ".join(f"w{i}" for i in range(200)), stall_after=3, hold=hold),
            Turn(text="Reading.", calls=[Call(name="read", arguments={"path": "a.txt"})]),
        ]
    )
    client = _direct(wire, server)
    messages = [{"role": "user", "content": "hi"}]

    async def run() -> tuple[bool, int, object]:
        seen = asyncio.Event()

        async def first() -> None:
            async for _item in client.stream_turn(messages, []):
                monkeypatch.setattr(coalesce, "READ_EVERY", 3600.0)  # from now on a held read waits "forever"
                seen.set()

        task = asyncio.ensure_future(first())
        waited = asyncio.ensure_future(seen.wait())
        await asyncio.wait([task, waited], timeout=60, return_when=asyncio.FIRST_COMPLETED)
        assert seen.is_set() and not task.done()  # read its head and a first event, now held
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        hold.set()  # the rest of the first reply is sent now, to a connection that must be gone
        monkeypatch.setattr(coalesce, "READ_EVERY", 0.010)
        items = [item async for item in client.stream_turn(messages, [])]
        return task.cancelled(), task.cancelling(), items[-1]

    cancelled, cancelling, reply = asyncio.run(run())
    assert cancelled and cancelling == 1
    assert isinstance(reply, TurnResponse) and reply.text == "Reading."
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("read", {"path": "a.txt"})]


def test_a_cancel_while_a_read_waits_out_the_interval_is_a_cancel(monkeypatch) -> None:
    monkeypatch.setattr(coalesce, "READ_EVERY", 3600.0)
    listener = socket.create_server(("127.0.0.1", 0))
    second = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(100)
            conn.sendall(b"head\n")
            second.wait(60)
            conn.sendall(b"first\n")
            conn.recv(100)  # until the client has gone

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    async def run() -> tuple[list[bytes], bool, int]:
        raw = await AnyIOBackend().connect_tcp("127.0.0.1", listener.getsockname()[1])
        stream = coalesce.CoalescedStream(raw)
        await stream.write(b"go\n")
        got = [await stream.read(65536)]
        second.set()  # one piece per free read, whatever the machine's load
        got.append(await stream.read(65536))
        task = asyncio.ensure_future(stream.read(65536))  # not free: it waits out the interval
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await stream.aclose()
        return got, task.cancelled(), task.cancelling()

    with listener:
        got, cancelled, cancelling = asyncio.run(run())
    thread.join(timeout=60)
    assert got == [b"head\n", b"first\n"] and cancelled and cancelling == 1


def test_an_outside_cancel_at_the_moment_the_idle_timer_fires_stays_a_cancel() -> None:
    async def run() -> tuple[bool, int]:
        bounded = IdleBounded(_paced([3600]), 0.2)

        async def consume() -> None:
            async for _ in bounded:
                pass

        task = asyncio.ensure_future(consume())
        while bounded._timer is None:
            await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        loop.call_at(bounded._timer.when(), task.cancel)  # the same loop turn as the timer, either order
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled(), task.cancelling()

    assert asyncio.run(run()) == (True, 1)  # the timer's own cancel taken back, the outside one kept


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_turns_on_one_kept_alive_connection_and_a_server_that_drops_one_mid_stream(request, wire) -> None:
    server = request.getfixturevalue("fakellm" if wire == "openai" else "fakeanthropic")
    words = " ".join(f"w{i}" for i in range(300))
    server.script([Turn(text=words), Turn(text=words), Turn(text=words, disconnect_after=5), Turn(text="after")])
    client = _direct(wire, server)
    messages = [{"role": "user", "content": "hi"}]

    async def run() -> tuple[list[object], int]:
        out: list[object] = []
        pool = client._client()._transport._pool  # type: ignore[attr-defined]
        for _ in range(2):
            out.append([item async for item in client.stream_turn(messages, [])][-1].text)  # type: ignore[union-attr]
        kept = len(pool.connections)
        try:
            async for _item in client.stream_turn(messages, []):
                pass
        except ModelError as exc:
            out.append((exc.kind, exc.retryable))
        out.append([item async for item in client.stream_turn(messages, [])][-1].text)  # type: ignore[union-attr]
        return out, kept

    out, kept = asyncio.run(run())
    assert kept == 1  # the second turn went on the first one's connection
    assert out == [words, words, ("connection", True), "after"]


def _forwarding_proxy() -> tuple[socket.socket, list[bytes]]:
    """A plain-HTTP forward proxy (what HTTP_PROXY names): it takes the request with its absolute
    URL, opens the origin and pipes both ways, and keeps the request lines it saw."""
    listener = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def pipe(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            head = b""
            while b"\r\n" not in head:
                head += conn.recv(65536)
            line = head.split(b"\r\n", 1)[0]
            seen.append(line)
            netloc = line.split()[1].split(b"/")[2].decode()
            host, port = netloc.rsplit(":", 1)
            origin = socket.create_connection((host, int(port)))
            origin.sendall(head)
            threading.Thread(target=pipe, args=(conn, origin), daemon=True).start()
            threading.Thread(target=pipe, args=(origin, conn), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener, seen


def test_a_stream_through_a_proxy_from_the_environment_is_read_whole(fakellm, monkeypatch) -> None:
    proxy, seen = _forwarding_proxy()
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.getsockname()[1]}")
    words = " ".join(f"w{i}" for i in range(500))
    fakellm.script([Turn(text=words), Turn(text="Reading.", calls=[Call(name="read", arguments={"path": "a.txt"})])])
    client = _direct("openai", fakellm)

    async def run() -> list[object]:
        messages = [{"role": "user", "content": "hi"}]
        return [[item async for item in client.stream_turn(messages, [])][-1] for _ in range(2)]

    with proxy:
        first, second = asyncio.run(run())
    assert seen and all(line.startswith(b"POST http://127.0.0.1:") for line in seen)
    assert getattr(first, "text", None) == words
    assert [(c.name, c.arguments) for c in getattr(second, "tool_calls", [])] == [("read", {"path": "a.txt"})]
