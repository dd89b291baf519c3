"""A scripted OpenAI-compatible chat-completions server for tests and benchmarks.

The real code under test talks to it through litellm over real HTTP, so every
byte-level quirk (SSE framing, split tool-call arguments, usage chunks, error
bodies, dropped connections) is exercised exactly as with a provider.

The server runs aiohttp on its own event loop in a daemon thread, so it works
the same from sync tests, from pytest-asyncio tests (whose loop is a different
one), and from Textual's `run_test`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from .images import openai_problem
from .script import Turn, generated_words

# Safety limits only (a test that fails should not hang): generous, a loaded 2-core box may take
# many seconds to send the second request of a barrier group or to reach a test's release.
BARRIER_TIMEOUT = 120.0
HOLD_LIMIT = 120.0
UNMATCHED_MESSAGE = "fakellm: no scripted turn matches this request"
# Size of text / reasoning deltas: small enough that even short test strings
# arrive as several deltas.
TEXT_PIECE = 8
ARG_PIECES = 3


@dataclass(eq=False)
class _Slot:
    """A scripted turn in the queue, plus its consumption state."""

    turn: Turn
    uses_left: int
    arrived: int = 0  # requests matched to this turn so far
    released: bool = False  # barrier already opened for this slot


class FakeLLM:
    """Scripted OpenAI-compatible server. Use as a context manager:

    with FakeLLM() as llm:
        llm.script([Turn(text="hi")])
        ... point the client at llm.base_url ...
    """

    def __init__(
        self,
        turns: Iterable[Turn] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        loop_script: bool = False,
        model_id: str = "fake",
        verbose: bool = False,
    ) -> None:
        self.host = host
        self.port = port
        self.model_id = model_id
        self.verbose = verbose
        # `GET /v1/models` lists these ids (default: model_id). With `api_key` set, every request
        # must carry `Authorization: Bearer <api_key>`, answered as OpenAI does otherwise (401).
        self.served_models: list[str] | None = None
        self.api_key: str | None = None
        self.model_list_requests = 0
        # One lock guards all script/request state: it is touched both from the
        # test thread (script, requests, ...) and the server loop thread.
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._pending: list[_Slot] = []
        self._barriers: dict[str, list[_Slot]] = {}
        self._requests: list[dict[str, Any]] = []
        # Each request's headers (names lower-cased), for tests that compare what two clients send.
        self.headers: list[dict[str, str]] = []
        self._unmatched = 0
        self.rejections: list[str] = []  # the 400s a real API would send (tests/fakellm/images.py)
        self._disconnects = 0
        self._ids = itertools.count(1)
        # In --loop mode the whole script is replayed whenever it runs out.
        self._cycle: list[Turn] | None = [] if loop_script else None

        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._changed: asyncio.Condition | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopping = False
        if turns is not None:
            self.script(turns)

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> FakeLLM:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> FakeLLM:
        if self._thread is not None:
            raise RuntimeError("FakeLLM already started")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fakellm", daemon=True)
        self._thread.start()
        fut = asyncio.run_coroutine_threadsafe(self._astart(), self._loop)
        try:
            fut.result(timeout=60)  # generous: a loaded box starts aiohttp slowly
        except BaseException:
            self._stop_loop()
            raise
        return self

    def stop(self) -> None:
        if self._loop is None or self._loop.is_closed():
            return
        if self._runner is not None:
            fut = asyncio.run_coroutine_threadsafe(self._astop(), self._loop)
            with contextlib.suppress(Exception):
                fut.result(timeout=10)
        self._stop_loop()

    def _stop_loop(self) -> None:
        assert self._loop is not None and self._thread is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._loop.close()

    async def _astart(self) -> None:
        app = web.Application(client_max_size=32 * 1024 * 1024)  # the real APIs take 32 MB requests (images)
        self._routes(app)
        self._changed = asyncio.Condition()
        # access_log=None: no per-request log lines in test output.
        # shutdown_timeout small: in-flight handlers are cancelled by _astop anyway.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]

    def _routes(self, app: web.Application) -> None:
        """The endpoints served; sibling stand-ins (anthropic.py, ollama.py) override this."""
        for prefix in ("/v1", ""):  # some clients drop the /v1 from base URLs
            app.router.add_post(prefix + "/chat/completions", self._handle_chat)
            app.router.add_get(prefix + "/models", self._handle_models)

    async def _guarded(self, handler: Any, request: web.Request) -> web.StreamResponse:
        """Run a handler as a tracked task, so stop() can cancel slow streams."""
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        with self._lock:
            self.headers.append({k.lower(): v for k, v in request.headers.items()})
        try:
            return await handler(request)
        finally:
            self._tasks.discard(task)

    async def _claim(self, body: dict[str, Any]) -> tuple[Turn | None, list[str]]:
        """Record the request and take its scripted turn (None when nothing matches), after the
        turn's barrier and delay; call ids are assigned per response."""
        with self._lock:
            self._requests.append(body)
            self._arrived.notify_all()
            slot = self._take(body)
            if slot is None:
                self._unmatched += 1
            turn = slot.turn if slot else None
            call_ids = [c.id or f"call_{next(self._ids)}" for c in turn.calls] if turn else []
        if self.verbose:
            print(
                f"fakellm: request #{len(self._requests)} -> {'unmatched' if turn is None else 'turn'}",
                file=sys.stderr,
                flush=True,
            )
        if slot is None or turn is None:
            return None, []
        if turn.barrier is not None:
            await self._notify()
            await self._wait_barrier(slot)
        if turn.delay:
            await asyncio.sleep(turn.delay)
        return turn, call_ids

    def _count_disconnect(self) -> None:
        with self._lock:
            self._disconnects += 1

    async def _astop(self) -> None:
        self._stopping = True
        # Cancel slow streams and barrier waits so stopping never takes seconds.
        for task in list(self._tasks):
            task.cancel()
        assert self._runner is not None
        await self._runner.cleanup()

    # ------------------------------------------------------------------ public API

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def script(self, turns: Turn | Iterable[Turn]) -> None:
        """Append turns to the queue (may be called while requests are in flight)."""
        if isinstance(turns, Turn):
            turns = [turns]
        turns = list(turns)
        for t in turns:
            if not isinstance(t, Turn):
                raise TypeError(f"expected Turn, got {type(t).__name__}")
        with self._lock:
            for t in turns:
                self._add_slot(t)
            if self._cycle is not None:
                self._cycle.extend(turns)
        # A new barrier turn changes what barrier waiters wait for.
        self._notify_threadsafe()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body received (including unmatched ones), in arrival order."""
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, n: int, timeout: float = 60.0) -> list[dict[str, Any]]:  # generous: a loaded box
        """Block until at least n requests have arrived; returns the snapshot."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self._requests) >= n, timeout):
                raise TimeoutError(f"fakellm: expected {n} requests within {timeout}s, got {len(self._requests)}")
            return list(self._requests)

    @property
    def remaining(self) -> int:
        """Number of scripted turns not yet fully consumed."""
        with self._lock:
            return len(self._pending)

    @property
    def unmatched(self) -> int:
        """Requests that no scripted turn matched (answered with a 400)."""
        with self._lock:
            return self._unmatched

    @property
    def disconnects(self) -> int:
        """Streams the client abandoned before the end (e.g. an Esc abort)."""
        with self._lock:
            return self._disconnects

    # ------------------------------------------------------------------ matching

    def _add_slot(self, turn: Turn) -> None:
        slot = _Slot(turn, uses_left=turn.repeat)
        self._pending.append(slot)
        if turn.barrier is not None:
            self._barriers.setdefault(turn.barrier, []).append(slot)

    def _take(self, body: dict[str, Any]) -> _Slot | None:
        """Consume one use of the first matching turn. Caller holds the lock."""
        slot = self._find(body)
        if slot is None and self._cycle:
            # Loop mode: start a fresh pass over the script, dropping leftovers
            # that can no longer match, instead of failing the request.
            for old in self._pending:
                self._forget_barrier(old)
            self._pending = []
            for t in self._cycle:
                self._add_slot(t)
            slot = self._find(body)
        if slot is None:
            return None
        slot.uses_left -= 1
        slot.arrived += 1
        if slot.uses_left == 0:
            self._pending.remove(slot)
        return slot

    def _find(self, body: dict[str, Any]) -> _Slot | None:
        for slot in self._pending:
            try:
                if slot.turn.matches(body):
                    return slot
            except Exception:
                # A broken match callable is a test bug: show it, treat as no match.
                traceback.print_exc(file=sys.stderr)
        return None

    def _forget_barrier(self, slot: _Slot) -> None:
        name = slot.turn.barrier
        if name is not None and slot in self._barriers.get(name, []):
            self._barriers[name].remove(slot)

    def _barrier_open(self, slot: _Slot) -> bool:
        """True once every not-yet-released turn sharing slot's barrier has had
        all its requests arrive; opening releases the whole group at once."""
        with self._lock:
            if slot.released or self._stopping:
                return True
            name = slot.turn.barrier
            assert name is not None
            group = self._barriers.get(name, [])
            if all(s.arrived >= s.turn.repeat for s in group):
                for s in group:
                    s.released = True
                self._barriers[name] = [s for s in group if not s.released]
                return True
            return False

    async def _wait_barrier(self, slot: _Slot) -> None:
        assert self._changed is not None
        try:
            async with self._changed:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: self._barrier_open(slot)),
                    BARRIER_TIMEOUT,
                )
        except TimeoutError:
            # Respond anyway so a test fails on its assertions, not by hanging.
            print(
                f"fakellm: barrier {slot.turn.barrier!r} timed out after {BARRIER_TIMEOUT}s; responding anyway",
                file=sys.stderr,
            )

    async def _notify(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._changed.notify_all()

    def _notify_threadsafe(self) -> None:
        loop = self._loop
        if loop is not None and loop.is_running():
            asyncio.run_coroutine_threadsafe(self._notify(), loop)

    # ------------------------------------------------------------------ handlers

    def _unauthorized(self, request: web.Request) -> web.Response | None:
        """OpenAI's 401 when a key is required and the request's bearer token is missing or wrong."""
        if self.api_key is None:
            return None
        header = request.headers.get("Authorization", "")
        if not header:
            return _error(
                401,
                "You didn't provide an API key. You need to provide your API key in an Authorization header "
                "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                "invalid_request_error",
                None,
            )
        if header != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided (fakellm).", "invalid_request_error", "invalid_api_key")
        return None

    async def _handle_models(self, request: web.Request) -> web.Response:
        with self._lock:
            self.model_list_requests += 1
        refused = self._unauthorized(request)
        if refused is not None:
            return refused
        ids = self.served_models if self.served_models is not None else [self.model_id]
        return web.json_response(
            {"object": "list", "data": [{"id": i, "object": "model", "created": 0, "owned_by": "fakellm"} for i in ids]}
        )

    async def _handle_chat(self, request: web.Request) -> web.StreamResponse:
        return await self._guarded(self._chat, request)

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        refused = self._unauthorized(request)
        if refused is not None:
            return refused
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            body = None
        if not isinstance(body, dict):
            return _error(400, "fakellm: request body is not a JSON object", "invalid_request_error", None)
        refused = openai_problem(body)
        if refused:  # as the real API: before any scripted turn is used
            with self._lock:
                self.rejections.append(refused)
            return _error(400, refused, "invalid_request_error", None)
        turn, call_ids = await self._claim(body)
        if turn is None:
            # 400, not 5xx: clients retry 5xx, which would only hide the script bug.
            return _error(400, UNMATCHED_MESSAGE, "invalid_request_error", "fakellm_unmatched")

        if turn.status is not None:
            return _error(turn.status, *_error_fields(turn))

        model = body.get("model") or self.model_id
        if not body.get("stream"):
            if turn.disconnect_after is not None:
                _abort(request)
                return web.Response()  # never sent: the transport is gone
            return web.json_response(_completion(turn, call_ids, model))
        return await self._stream(request, body, turn, call_ids, model)

    async def _stream(
        self,
        request: web.Request,
        body: dict[str, Any],
        turn: Turn,
        call_ids: list[str],
        model: str,
    ) -> web.StreamResponse:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        created = int(time.time())
        interval = 1.0 / turn.tokens_per_second if turn.tokens_per_second else turn.chunk_delay
        start = time.monotonic()
        sent = 0
        payloads = (
            iter([b"data: [DONE]\n\n"])
            if turn.empty_stream
            else _stream_payloads(turn, call_ids, model, created, include_usage)
        )
        try:
            for i, payload in enumerate(payloads):
                if turn.stall and i == turn.stall_after:
                    await asyncio.sleep(turn.stall)
                if turn.hold is not None and i == turn.stall_after:
                    await _held(turn.hold)
                if turn.disconnect_after is not None and sent >= turn.disconnect_after:
                    await _drain(request)
                    _abort(request)
                    return resp
                if i and interval:
                    if turn.tokens_per_second:
                        # Pace against the clock so the rate holds regardless of
                        # how long each write takes.
                        await asyncio.sleep(max(0.0, start + i * interval - time.monotonic()))
                    else:
                        await asyncio.sleep(interval)
                await resp.write(payload)
                sent += 1
            if turn.disconnect_after is not None:
                # Asked to drop after at least as many chunks as there are: drop
                # before the terminating chunk so the body is still truncated.
                await _drain(request)
                _abort(request)
                return resp
            await resp.write_eof()
        except (ConnectionError, RuntimeError):
            # Client went away (abort/cancel). aiohttp raises ConnectionResetError
            # subclasses, or RuntimeError for writes to a closing transport.
            self._count_disconnect()
        return resp


# ---------------------------------------------------------------------- payloads


def _pieces(s: str, size: int) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)]


def _split_n(s: str, n: int) -> list[str]:
    """Split s into up to n non-empty, roughly equal pieces."""
    if not s:
        return []
    step = max(1, -(-len(s) // n))
    return _pieces(s, step)


def _chunk(model: str, created: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _usage(turn: Turn) -> dict[str, Any]:
    u = turn.effective_usage()
    out: dict[str, Any] = {
        "prompt_tokens": u[0],
        "completion_tokens": u[1],
        "total_tokens": u[0] + u[1],
    }
    if len(u) > 2:
        out["prompt_tokens_details"] = {"cached_tokens": u[2]}
    return out


def _tool_call_deltas(turn: Turn, call_ids: list[str]) -> Iterator[dict[str, Any]]:
    """Each call: a header delta (id, type, name, empty arguments), then the
    argument JSON split over several deltas carrying only the index."""
    for index, (call, call_id) in enumerate(zip(turn.calls, call_ids, strict=True)):
        names = _split_n(call.name, turn.name_pieces) or [""]
        for n, name in enumerate(names):
            head: dict[str, Any] = {"function": {"name": name, "arguments": ""}}
            if n == 0:
                head = {"type": "function", **head} if turn.omit_ids else {"id": call_id, "type": "function", **head}
            if not turn.omit_index:
                head = {"index": index, **head}
            yield head
        for piece in _split_n(call.arguments_json(), ARG_PIECES):
            part: dict[str, Any] = {"function": {"arguments": piece}}
            if not turn.omit_index:
                part = {"index": index, **part}
            yield part


def _stream_payloads(turn: Turn, call_ids: list[str], model: str, created: int, include_usage: bool) -> Iterator[bytes]:
    def sse(obj: dict[str, Any]) -> bytes:
        return f"data: {json.dumps(obj)}\n\n".encode()

    # OpenAI opens with a role-only delta; clients must cope with empty content.
    yield sse(_chunk(model, created, {"role": "assistant", "content": ""}))
    for piece in turn.reasoning_pieces(TEXT_PIECE):
        yield sse(_chunk(model, created, {"reasoning_content": piece}))
    for piece in turn.text_pieces(TEXT_PIECE):
        yield sse(_chunk(model, created, {"content": piece}))
    for word in generated_words(turn.text_tokens, after=turn.text):
        yield sse(_chunk(model, created, {"content": word}))
    if turn.endless:
        until = time.monotonic() + turn.endless
        # Varied words: litellm ends a stream that repeats one chunk over and over.
        words = itertools.cycle(generated_words(997))
        while time.monotonic() < until:
            yield sse(_chunk(model, created, {"content": " " + next(words).strip()}))
    for tc in _tool_call_deltas(turn, call_ids):
        yield sse(_chunk(model, created, {"tool_calls": [tc]}))
    yield sse(_chunk(model, created, {}, turn.effective_finish_reason()))
    if include_usage:
        obj = _chunk(model, created, {})
        obj["choices"] = []
        obj["usage"] = _usage(turn)
        yield sse(obj)
    yield b"data: [DONE]\n\n"


def _completion(turn: Turn, call_ids: list[str], model: str) -> dict[str, Any]:
    text = turn.full_text()
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for call, call_id in zip(turn.calls, call_ids, strict=True)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": turn.effective_finish_reason()}],
        "usage": _usage(turn),
    }


# ---------------------------------------------------------------------- errors


def _error_fields(turn: Turn) -> tuple[str, str | None, str | None]:
    """(message, type, code) in OpenAI's style, defaulted from the status."""
    status = turn.status or 500
    msg = turn.error_message
    etype, code = turn.error_type, turn.error_code
    if status == 429:
        msg = msg or "Rate limit reached for requests (fakellm)."
        etype, code = etype or "rate_limit_exceeded", code or "rate_limit_exceeded"
    elif status in (401, 403):
        msg = msg or "Incorrect API key provided (fakellm)."
        etype, code = etype or "invalid_request_error", code or "invalid_api_key"
    elif status >= 500:
        msg = msg or "The server had an error while processing your request (fakellm)."
        etype = etype or "server_error"
    else:
        msg = msg or f"fakellm: scripted error {status}"
        etype = etype or "invalid_request_error"
        if code is None and "maximum context length" in msg.lower():
            code = "context_length_exceeded"
    return msg, etype, code


def _error(status: int, message: str, etype: str | None, code: str | None) -> web.Response:
    return web.json_response(
        {"error": {"message": message, "type": etype, "param": None, "code": code}},
        status=status,
    )


# ---------------------------------------------------------------------- disconnects


async def _drain(request: web.Request) -> None:
    """Wait until written chunks have left our buffer, so aborting does not
    also discard them: the client must see the chunks before the reset."""
    transport = request.transport
    deadline = time.monotonic() + 1.0
    while transport is not None and transport.get_write_buffer_size() and time.monotonic() < deadline:
        await asyncio.sleep(0.001)
    # Give the client a moment to read them before the RST arrives.
    await asyncio.sleep(0.01)


async def _held(event: threading.Event) -> None:
    """Until the test sets `event` (polled, so stopping the server cancels it at once)."""
    limit = time.monotonic() + HOLD_LIMIT
    while not event.is_set() and time.monotonic() < limit:
        await asyncio.sleep(0.01)


def _abort(request: web.Request) -> None:
    """Reset the TCP connection (RST, not a clean FIN) mid-response."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            # SO_LINGER with a zero timeout makes close() send RST.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()
