"""LiteLLMClient reads litellm's provider chunks from under its stream wrapper (model/chunks.py):
the same turns and errors as through the wrapper, through real litellm.

These began as the prototype's equality tests against the wrapper-read client; `last_direct` pins
which route a turn took. Misbehaving streams the scripted server cannot produce (a clean end before
any finish_reason, an error event mid-stream, a malformed event) come from `raw_sse`, a server that
sends the given bytes verbatim and then closes the connection cleanly.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from flue_tui.model.base import ModelError, TextChunk, ThinkingChunk, TurnResponse
from flue_tui.model.clients import client_for
from flue_tui.model.litellm_client import LiteLLMClient
from tests.fakellm import Call, Turn


@pytest.fixture(params=["litellm", "direct"])
def client_cls(request: pytest.FixtureRequest) -> Any:
    """Both paths: litellm's, and the direct one (model/clients.py routes openai/ and anthropic/ there)."""
    if request.param == "litellm":
        return LiteLLMClient
    return client_for


async def run_turn(client: Any, tools: list[dict[str, Any]] | None = None) -> tuple[list[Any], TurnResponse]:
    items = [item async for item in client.stream_turn([{"role": "user", "content": "go"}], tools or [])]
    assert isinstance(items[-1], TurnResponse)
    return items[:-1], items[-1]


def make(client_cls: Any, base_url: str) -> Any:
    return client_cls("openai/fake", api_base=base_url, api_key="sk-test")


async def test_text_reasoning_and_usage(client_cls, fakellm) -> None:
    fakellm.script([Turn(reasoning="Think it over.", text="The answer is 42.", usage=(120, 9, 100))])
    client = make(client_cls, fakellm.base_url)
    items, done = await run_turn(client)
    assert client.last_direct
    assert "".join(i.text for i in items if isinstance(i, ThinkingChunk)) == "Think it over."
    assert "".join(i.text for i in items if isinstance(i, TextChunk)) == "The answer is 42."
    assert (done.text, done.thinking, done.finish_reason) == ("The answer is 42.", "Think it over.", "stop")
    assert (done.usage.input, done.usage.output, done.usage.cache_read) == (20, 9, 100)


@pytest.mark.parametrize("omit_index", [False, True])
async def test_tool_calls(client_cls, fakellm, omit_index: bool) -> None:
    fakellm.script(
        [
            Turn(
                omit_index=omit_index,
                calls=[Call("read", {"path": "a.txt"}, id="c1"), Call("grep", {"pattern": "x"}, id="c2")],
            )
        ]
    )
    _, done = await run_turn(make(client_cls, fakellm.base_url))
    assert [(c.id, c.name, c.arguments) for c in done.tool_calls] == [
        ("c1", "read", {"path": "a.txt"}),
        ("c2", "grep", {"pattern": "x"}),
    ]
    assert done.finish_reason == "tool_calls"


async def test_finish_reason_length(client_cls, fakellm) -> None:
    fakellm.script([Turn(text="cut sho", finish_reason="length")])
    _, done = await run_turn(make(client_cls, fakellm.base_url))
    assert (done.text, done.finish_reason) == ("cut sho", "length")


@pytest.mark.parametrize(
    ("turn", "kind", "retryable"),
    [
        (Turn(status=429), "rate_limit", True),
        (Turn.context_overflow(), "overflow", False),
        (Turn(status=401), "auth", False),
        (Turn(status=503), "server", True),
    ],
)
async def test_http_errors_keep_their_kind(client_cls, fakellm, turn: Turn, kind: str, retryable: bool) -> None:
    fakellm.script([turn])
    with pytest.raises(ModelError) as info:
        await run_turn(make(client_cls, fakellm.base_url))
    assert (info.value.kind, info.value.retryable) == (kind, retryable)


async def test_connection_reset_mid_stream_is_a_retryable_error(client_cls, fakellm) -> None:
    fakellm.script([Turn(text="abcdefgh" * 20, disconnect_after=4)])
    with pytest.raises(ModelError) as info:
        await run_turn(make(client_cls, fakellm.base_url))
    assert info.value.retryable


async def test_abandoned_stream_closes_the_connection(client_cls, fakellm) -> None:
    # Held after a few chunks until the client has gone, so the stream cannot end first on a slow box.
    gone = threading.Event()
    fakellm.script([Turn(text="x" * 4000, chunk_delay=0.01, stall_after=4, hold=gone)])
    stream = make(client_cls, fakellm.base_url).stream_turn([{"role": "user", "content": "go"}], [])
    assert isinstance(await anext(stream), TextChunk)
    await stream.aclose()  # what an Esc does to the consuming task
    gone.set()
    deadline = time.monotonic() + 60  # generous: returns as soon as the server has seen it
    while not fakellm.disconnects and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert fakellm.disconnects == 1


# -- streams the scripted server cannot send ---------------------------------------------------------


def _event(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> bytes:
    obj = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
        **top,
    }
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


@pytest.fixture
def raw_sse() -> Iterator[list[Any]]:
    """[url, body]: set body (bytes) before the request; the server sends it and closes cleanly."""
    box: list[Any] = [None, b""]
    loop = asyncio.new_event_loop()

    async def chat(request: web.Request) -> web.StreamResponse:
        await request.read()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        await resp.write(box[1])
        await resp.write_eof()
        return resp

    async def start() -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/{tail:.*}", chat)  # chat/completions, or Anthropic's v1/messages
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    import threading

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner = asyncio.run_coroutine_threadsafe(start(), loop).result(60)
    box[0] = f"http://127.0.0.1:{runner.addresses[0][1]}/v1"
    yield box
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(60)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


async def test_clean_end_before_finish_is_an_error_not_a_short_reply(client_cls, raw_sse) -> None:
    raw_sse[1] = _event({"role": "assistant", "content": ""}) + _event({"content": "half a rep"})
    with pytest.raises(ModelError) as info:
        await run_turn(make(client_cls, raw_sse[0]))
    assert info.value.retryable


async def test_error_event_mid_stream_is_a_model_error(client_cls, raw_sse) -> None:
    error = {"error": {"message": "The server had an error while processing your request.", "code": 500}}
    raw_sse[1] = _event({"content": "partial"}) + b"data: " + json.dumps(error).encode() + b"\n\n"
    with pytest.raises(ModelError) as info:
        await run_turn(make(client_cls, raw_sse[0]))
    assert info.value.retryable


async def test_malformed_event_is_one_model_error(client_cls, raw_sse) -> None:
    raw_sse[1] = _event({"content": "ok"}) + b"data: {not json\n\n" + _event({}, "stop") + b"data: [DONE]\n\n"
    try:
        _, done = await run_turn(make(client_cls, raw_sse[0]))
    except ModelError as exc:
        assert exc.message  # one sentence for the user, never a traceback
    else:
        assert done.text == "ok"  # litellm skips an event it cannot parse; so may we


async def test_many_identical_chunks_are_delivered(raw_sse) -> None:
    """A reply that repeats a chunk (a long `----` rule, indentation) is text, not an error.
    litellm's wrapper aborts after 100 identical chunks (its loop guard); read from under it, they are kept."""
    raw_sse[1] = b"".join(_event({"content": "----"}) for _ in range(150)) + _event({}, "stop") + b"data: [DONE]\n\n"
    client = make(LiteLLMClient, raw_sse[0])
    _, done = await run_turn(client)
    assert done.text == "----" * 150
    assert client.last_direct


def _anthropic(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


ANTHROPIC_THINKING = _anthropic(
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 10,
                "cache_creation_input_tokens": 20,
                "cache_read_input_tokens": 300,
                "output_tokens": 1,
            },
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me think."}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig-abc"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hello."}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 15},
    },
    {"type": "message_stop"},
)


async def test_anthropic_thinking_signature_and_cache_usage(client_cls, raw_sse) -> None:
    """litellm's Anthropic parser runs under the wrapper too: thinking, its signature, cache usage."""
    raw_sse[1] = ANTHROPIC_THINKING
    client = client_cls("anthropic/claude-sonnet-4-5", api_base=raw_sse[0].removesuffix("/v1"), api_key="sk-ant")
    _, done = await run_turn(client)
    assert (done.text, done.thinking, done.finish_reason) == ("Hello.", "Let me think.", "stop")
    assert (done.usage.input, done.usage.output, done.usage.cache_read, done.usage.cache_write) == (10, 15, 300, 20)
    assert client.last_direct
    assert done.thinking_blocks == [{"type": "thinking", "thinking": "Let me think.", "signature": "sig-abc"}]


async def test_anthropic_overloaded_mid_stream_is_retryable(client_cls, raw_sse) -> None:
    raw_sse[1] = ANTHROPIC_THINKING.split(b"event: content_block_start", 1)[0] + _anthropic(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    client = client_cls("anthropic/claude-sonnet-4-5", api_base=raw_sse[0].removesuffix("/v1"), api_key="sk-ant")
    with pytest.raises(ModelError) as info:
        await run_turn(client)
    assert info.value.retryable


async def test_route_off_the_allow_list_streams_through_the_wrapper(client_cls, raw_sse) -> None:
    """Gemini's iterator is not on the allow-list: it is read through litellm's wrapper."""
    event = {
        "candidates": [
            {"content": {"parts": [{"text": "Hi from Gemini."}], "role": "model"}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 4, "totalTokenCount": 9},
    }
    raw_sse[1] = b"data: " + json.dumps(event).encode() + b"\r\n\r\n"
    client = client_cls("gemini/gemini-2.5-flash", api_base=raw_sse[0], api_key="g-key")
    _, done = await run_turn(client)
    assert (done.text, done.finish_reason, done.usage.output) == ("Hi from Gemini.", "stop", 4)
    assert not client.last_direct


async def test_no_usage_from_the_server_is_an_unknown_cost(raw_sse) -> None:
    """Some servers ignore stream_options: the turn's cost is unknown, never a made-up $0."""
    raw_sse[1] = _event({"content": "hi"}) + _event({}, "stop") + b"data: [DONE]\n\n"
    client = make(LiteLLMClient, raw_sse[0])
    _, done = await run_turn(client)
    assert client.last_direct
    assert (done.text, done.usage.output, done.usage.priced) == ("hi", 0, False)
