"""The direct path against hostile and broken servers: garbage lines, bytes that are not UTF-8,
huge lines, a stream that never ends, the wrong content type, HTML error pages, a body cut in the
middle of an event. Each is a whole reply or ONE sentence, never a traceback; the key never shows."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web

from flue_tui.model.base import ModelError, TurnResponse
from flue_tui.model.clients import client_for
from flue_tui.model.sse import MAX_IDLE_LINES

pytestmark = pytest.mark.usefixtures("either_side")  # in process and through the relay

KEY = "sk-secret-0123456789abcdef"


@dataclass
class Script:
    status: int = 200
    content_type: str = "text/event-stream"
    body: bytes = b""
    # Called for a body written piece by piece (a never-ending stream, bounded by its own count).
    pieces: Any = None
    abort: bool = False  # reset the connection after the body instead of ending it
    headers: dict[str, str] = field(default_factory=dict)  # more response headers (Location, …)
    seen: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture
def hostile() -> Iterator[tuple[str, Script]]:
    script = Script()
    loop = asyncio.new_event_loop()

    async def handle(request: web.Request) -> web.StreamResponse:
        await request.read()
        script.seen.append(dict(request.headers))
        resp = web.StreamResponse(status=script.status, headers={"Content-Type": script.content_type, **script.headers})
        await resp.prepare(request)
        try:
            if script.pieces is not None:
                for piece in script.pieces():
                    await resp.write(piece)
            else:
                await resp.write(script.body)
            if script.abort:
                assert request.transport is not None
                request.transport.abort()
                return resp
            await resp.write_eof()
        except (ConnectionError, RuntimeError):
            pass  # the client gave up, as it should
        return resp

    async def start() -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner = asyncio.run_coroutine_threadsafe(start(), loop).result(60)
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1", script
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(60)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def event(delta: dict[str, Any] | None = None, finish: str | None = None) -> bytes:
    chunk = {"id": "c", "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


END = (
    event({}, "stop")
    + b'data: {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}\n\ndata: [DONE]\n\n'
)


def client(base: str, wire: str = "openai", **kw: Any) -> Any:
    if wire == "anthropic":
        made = client_for("anthropic/claude-sonnet-4-5", api_base=base.removesuffix("/v1"), api_key=KEY, **kw)
    else:
        made = client_for("openai/gpt-4.1", api_base=base, api_key=KEY, **kw)
    assert made.last_direct  # the direct path, not litellm
    return made


async def _run(c: Any) -> TurnResponse:
    items = [i async for i in c.stream_turn([{"role": "user", "content": "go"}], [])]
    assert isinstance(items[-1], TurnResponse)
    return items[-1]


def outcome(c: Any) -> TurnResponse | ModelError:
    try:
        return asyncio.run(_run(c))
    except ModelError as exc:
        return exc


def one_sentence(result: Any) -> str:
    assert isinstance(result, ModelError), result
    text = result.message
    assert text and "\n" not in text and "Traceback" not in text and KEY not in text
    assert KEY not in (result.hint or "")
    return text


def test_garbage_lines_between_events_are_ignored(hostile) -> None:
    base, script = hostile
    script.body = (
        b"garbage\n\x00\x01 nope\n: comment\nretry: 10\nid: 3\n\n" + event({"content": "hi"}) + b"junk\n\n" + END
    )
    done = outcome(client(base))
    assert isinstance(done, TurnResponse) and done.text == "hi"


def test_bytes_that_are_not_utf8_are_one_sentence(hostile) -> None:
    base, script = hostile
    script.body = event({"content": "hi"}) + b'data: {"choices": [{"delta": {"content": "\xff\xfe"}}]}\n\n' + END
    assert "not UTF-8" in one_sentence(outcome(client(base)))


def test_a_huge_line_is_one_sentence_not_unbounded_memory(hostile) -> None:
    base, script = hostile
    script.pieces = lambda: (b"data: " + b"x" * (1 << 20) for _ in range(6))  # 6 MiB, no newline
    assert "over 4 MiB" in one_sentence(outcome(client(base)))


def test_a_never_ending_stream_of_events_is_cut_at_the_reply_bound(hostile) -> None:
    base, script = hostile
    script.pieces = lambda: (event({"content": f"word{i} "}) for i in range(200_000))
    done = outcome(client(base, max_reply_chars=20_000))
    assert isinstance(done, TurnResponse) and done.finish_reason == "length"
    assert len(done.text) <= 20_100


def test_a_never_ending_stream_of_comments_is_one_sentence(hostile) -> None:
    base, script = hostile
    script.pieces = lambda: (b": keep-alive\n" * 10_000 for _ in range(MAX_IDLE_LINES // 10_000 + 2))
    assert "without an event" in one_sentence(outcome(client(base)))


@pytest.mark.parametrize("content_type", ["application/json", "text/html"])
def test_a_wrong_content_type_is_one_sentence(hostile, content_type: str) -> None:
    base, script = hostile
    script.content_type = content_type
    script.body = (
        b'{"choices": [{"message": {"content": "not streamed"}}]}' if "json" in content_type else b"<html>hi</html>"
    )
    one_sentence(outcome(client(base)))


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_an_html_error_page_is_its_title(hostile, wire: str) -> None:
    base, script = hostile
    script.status, script.content_type = 502, "text/html"
    script.body = (
        b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1>" + b"x" * 200_000
    )
    result = outcome(client(base, wire))
    assert one_sentence(result).endswith("returned 502: 502 Bad Gateway")
    assert isinstance(result, ModelError) and result.kind == "server" and result.retryable


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_body_cut_mid_event_is_a_retryable_lost_connection(hostile, wire: str) -> None:
    base, script = hostile
    if wire == "openai":
        script.body = event({"content": "half a "}) + b'data: {"choices": [{"delta": {"content": "rep'
    else:
        start = {"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}
        block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
        text = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "half"}}
        script.body = b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in (start, block, text))
        script.body += b'event: content_block_delta\ndata: {"type": "content_block_de'
    for abort in (False, True):
        script.abort = abort
        result = outcome(client(base, wire))
        assert one_sentence(result).startswith("Connection lost")
        assert isinstance(result, ModelError) and result.retryable


def test_an_error_body_that_echoes_the_key_does_not_show_it(hostile, caplog) -> None:
    base, script = hostile
    script.status, script.content_type = 401, "application/json"
    script.body = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}."}}).encode()
    with caplog.at_level(logging.DEBUG):
        result = outcome(client(base))
    assert "[API key]" in one_sentence(result)
    assert script.seen[0]["Authorization"] == f"Bearer {KEY}"  # sent, in the header only
    assert all(KEY not in record.getMessage() for record in caplog.records)


def test_a_server_that_never_answers_is_the_idle_timeout(hostile) -> None:
    base, script = hostile
    gate = threading.Event()

    def pieces() -> Iterator[bytes]:
        yield event({"content": "hi"})
        gate.wait(60)  # blocks this server's loop: nothing more arrives until the test ends
        yield END

    script.pieces = pieces
    try:
        result = outcome(client(base, idle_timeout=0.5))
    finally:
        gate.set()
    assert "timed out" in one_sentence(result)
