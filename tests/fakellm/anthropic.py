"""A strict stand-in for Anthropic's Messages API (`POST /v1/messages`), scripted with `Turn`s.

It refuses what the real API refuses (anthropic_rules.py: role alternation, tool_use/tool_result
pairing, at most 4 cache_control blocks, required max_tokens, thinking blocks whose signature
must come back unaltered), answers errors in Anthropic's `{"type":"error",...}` shape, streams the
SSE events in Anthropic's order, and counts a prompt cache so caching is observable in the usage.
Point litellm at it with `ANTHROPIC_API_BASE=<base_url>` (litellm appends /v1/messages).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

from aiohttp import web

from .anthropic_rules import PromptCache, sign, validate
from .script import CONTEXT_OVERFLOW_MESSAGE, Turn, as_held, generated_words
from .server import TEXT_PIECE, FakeLLM, _abort, _drain, _held, _split_n

ARG_PIECES = 3
_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_DEFAULT_MESSAGES = {
    401: "invalid x-api-key",
    429: "Number of request tokens has exceeded your per-minute rate limit",
    500: "Internal server error",
    529: "Overloaded",
}


def error_body(status: int, message: str, etype: str | None = None) -> web.Response:
    kind = etype or _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return web.json_response(
        {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}, status=status
    )


def redacted_data(text: str) -> str:
    """Opaque like the real thing, yet checkable: the text and its signature."""
    return f"{text}.{sign(text)}"


class FakeAnthropic(FakeLLM):
    """Scripted, strict Anthropic Messages endpoint. `rejections` holds each 400 it sent."""

    def __init__(self, turns: Iterable[Turn] | None = None, *, min_cache_tokens: int = 1024, **kw: Any) -> None:
        super().__init__(turns, **kw)
        self.cache = PromptCache(min_tokens=min_cache_tokens)
        self.rejections: list[str] = []
        self.usages: list[dict[str, int]] = []  # the usage reported for each answered request

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._handle_messages)

    async def _handle_messages(self, request: web.Request) -> web.StreamResponse:
        return await self._guarded(self._messages, request)

    def _reject(self, message: str, status: int = 400, etype: str | None = None) -> web.Response:
        with self._lock:
            self.rejections.append(message)
        return error_body(status, message, etype)

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        if not request.headers.get("x-api-key") and not request.headers.get("authorization"):
            return self._reject("x-api-key header is required", 401)
        if not request.headers.get("anthropic-version"):
            return self._reject("anthropic-version: header is required")
        try:
            body = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError) as exc:
            return self._reject(f"There was an issue with your request body: {exc}")
        if not isinstance(body, dict):
            return self._reject("There was an issue with your request body: expected an object")
        problem = validate(body) or self._redacted_problem(body)
        if problem:
            with self._lock:
                self._requests.append(body)
                self._arrived.notify_all()
            return self._reject(problem)
        turn, call_ids = await self._claim(body)
        if turn is None:
            return self._reject("fakellm: no scripted turn matches this request")
        if turn.status is not None:
            message = turn.error_message or _DEFAULT_MESSAGES.get(turn.status, f"scripted error {turn.status}")
            if message == CONTEXT_OVERFLOW_MESSAGE:
                message = "prompt is too long: 210000 tokens > 200000 maximum"
            return error_body(turn.status, message, turn.error_type)
        usage = self._usage(body, turn)
        ids = [f"toolu_{cid}" if not cid.startswith("toolu_") else cid for cid in call_ids]
        events = list(_events(body, turn, ids, usage))
        if not body.get("stream"):
            return web.json_response(_assemble(events))
        return await self._stream(request, turn, events)

    def _redacted_problem(self, body: dict[str, Any]) -> str | None:
        for n, message in enumerate(body["messages"]):
            content = message.get("content")
            for k, block in enumerate(content if isinstance(content, list) else []):
                if isinstance(block, dict) and block.get("type") == "redacted_thinking":
                    text, _, sig = str(block.get("data", "")).rpartition(".")
                    if sig != sign(text):
                        return f"messages.{n}.content.{k}: Invalid `data` in `redacted_thinking` block"
        return None

    def _usage(self, body: dict[str, Any], turn: Turn) -> dict[str, int]:
        fresh, write, read = self.cache.account(body)
        output = max(1, len(turn.full_text() + turn.reasoning + "".join(c.arguments_json() for c in turn.calls)) // 4)
        if turn.usage is not None:
            u = tuple(turn.usage) + (0, 0)
            fresh, output, read, write = u[0], u[1], u[2], u[3]
        usage = {
            "input_tokens": fresh,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": output,
        }
        with self._lock:
            self.usages.append(usage)
        return usage

    async def _stream(self, request: web.Request, turn: Turn, events: list[tuple[str, dict]]) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        try:
            for sent, (name, data) in enumerate(events):
                if turn.disconnect_after is not None and sent >= turn.disconnect_after:
                    await _drain(request)
                    _abort(request)
                    return resp
                if sent and turn.chunk_delay:
                    await asyncio.sleep(turn.chunk_delay)
                if turn.hold is not None and sent == turn.stall_after:
                    await _held(turn.hold)
                await resp.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            await resp.write_eof()
        except (ConnectionError, RuntimeError):
            self._count_disconnect()
        return resp


def _events(body: dict[str, Any], turn: Turn, ids: list[str], usage: dict[str, int]) -> Iterator[tuple[str, dict]]:
    """The SSE events of one reply, in the order Anthropic sends them."""
    model = body.get("model", "claude")
    start_usage = {**usage, "output_tokens": 1}
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": f"msg_fake{int(time.time() * 1000)}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
    )
    yield "ping", {"type": "ping"}
    index = 0
    thinking_on = (body.get("thinking") or {}).get("type") == "enabled"

    def block(start: dict[str, Any], deltas: Iterable[dict[str, Any]]) -> Iterator[tuple[str, dict]]:
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
        for delta in deltas:
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}

    if thinking_on and turn.reasoning:
        deltas = [{"type": "thinking_delta", "thinking": p} for p in turn.reasoning_pieces(TEXT_PIECE)]
        deltas.append({"type": "signature_delta", "signature": sign(as_held(turn.reasoning))})
        yield from block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
        index += 1
    if thinking_on and turn.redacted_thinking:
        yield from block({"type": "redacted_thinking", "data": redacted_data(turn.redacted_thinking)}, [])
        index += 1
    words = generated_words(turn.text_tokens, after=turn.text)
    if turn.text or words:
        deltas = [{"type": "text_delta", "text": p} for p in [*turn.text_pieces(TEXT_PIECE), *words]]
        yield from block({"type": "text", "text": ""}, deltas)
        index += 1
    for call, call_id in zip(turn.calls, ids, strict=True):
        deltas = [{"type": "input_json_delta", "partial_json": ""}]
        deltas += [{"type": "input_json_delta", "partial_json": p} for p in _split_n(call.arguments_json(), ARG_PIECES)]
        yield from block({"type": "tool_use", "id": call_id, "name": call.name, "input": {}}, deltas)
        index += 1
    reason = turn.effective_finish_reason()
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _STOP.get(reason, reason), "stop_sequence": None},
            "usage": usage,
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _assemble(events: list[tuple[str, dict]]) -> dict[str, Any]:
    """The non-streaming reply: the same message, put together from the events."""
    message: dict[str, Any] = {}
    blocks: list[dict[str, Any]] = []
    partial: list[str] = []
    for name, data in events:
        if name == "message_start":
            message = dict(data["message"])
        elif name == "content_block_start":
            blocks.append(dict(data["content_block"]))
            partial = []
        elif name == "content_block_delta":
            delta, cur = data["delta"], blocks[-1]
            if delta["type"] == "text_delta":
                cur["text"] += delta["text"]
            elif delta["type"] == "thinking_delta":
                cur["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                cur["signature"] = delta["signature"]
            elif delta["type"] == "input_json_delta":
                partial.append(delta["partial_json"])
                cur["input"] = json.loads("".join(partial) or "{}") if _complete("".join(partial)) else {}
        elif name == "message_delta":
            message.update(data["delta"])
            message["usage"] = data["usage"]
    message["content"] = blocks
    return message


def _complete(text: str) -> bool:
    try:
        json.loads(text or "{}")
        return True
    except ValueError:
        return False
