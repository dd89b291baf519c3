"""The direct path: one assistant turn over httpx, for the routes route.py sends here (OpenAI chat
completions, Anthropic Messages). No litellm import: flue builds the request (wire_openai.py,
wire_anthropic.py), reads the event stream (sse.py) and folds it with the same fold as the litellm
path (fold.py). Prices and windows come from litellm's model map read as data (modelmap.py);
failures read as the litellm path's (failures.py, errors.py). The API key goes in a header only:
it is never part of a message, a log line or an error.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from typing import Any

from flue_tui.core.messages import Usage
from flue_tui.model import modelmap, relay, transport, turn_params, wire_openai  # wire_anthropic: in its turns
from flue_tui.model.base import ModelError, StreamItem
from flue_tui.model.caching import anthropic_served, with_breakpoints
from flue_tui.model.chunks import StreamEndedEarly
from flue_tui.model.errors import CUT_MESSAGE, readable
from flue_tui.model.failures import IDLE_TIMEOUT_S, MAX_REPLY_CHARS, IdleBounded, model_error, within
from flue_tui.model.fold import Fold, counts
from flue_tui.model.keyhelp import no_key_help
from flue_tui.model.keys import key_need, key_var, provider_of
from flue_tui.model.pricing import Prices
from flue_tui.model.route import Route
from flue_tui.model.sse import StreamFault, events
from flue_tui.model.wire_openai import Malformed, ProviderFailure

MAX_ERROR_BODY = 64 << 10  # an error body past this is cut: its message is at the start
ANTHROPIC_VERSION = "2023-06-01"
RELAY_ENDED = (
    "Connection lost: flue's HTTP relay process ended before the reply was complete"
    " (the next request goes from flue itself)"
)
LOCAL_REFUSAL = (
    "The request was not sent: the API key or a header holds characters HTTP does not allow"
    " (a line break or a control character)"
)


class DirectClient:
    """A ModelClient that speaks the wire itself; the same constructor as LiteLLMClient."""

    def __init__(
        self,
        model: str,
        *,
        route: Route,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = 600.0,
        context_window: int | None = None,
        prompt_cache: bool = True,
        prices: Prices | None = None,
        effort: str | None = None,
        max_output_tokens: int | None = None,
        idle_timeout: float = IDLE_TIMEOUT_S,
        max_reply_chars: int = MAX_REPLY_CHARS,
    ) -> None:
        assert route.wire is not None
        self.model = model
        self.route = route
        self.effort = effort  # off/low/medium/high; /effort changes it on a live session
        self.output_override = max_output_tokens
        self.context_override = context_window
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.max_reply_chars = max_reply_chars
        self.prompt_cache = prompt_cache and anthropic_served(model)
        self.prices = prices
        self.last_direct = True  # read as litellm_client's: every turn here is flue's own parsing
        self._http: tuple[Any, Any] | None = None  # (event loop, httpx.AsyncClient): a pool per loop
        self._sent_key = ""  # kept out of every error message

    # -- what the model is ---------------------------------------------------------------------------
    def _entry(self) -> dict[str, Any] | None:
        return modelmap.info(self.model)

    def context_window(self) -> int | None:
        if self.context_override:
            return self.context_override
        entry = self._entry() or {}
        value = entry.get("max_input_tokens") or entry.get("max_tokens")
        return int(value) if isinstance(value, (int, float)) and value else None

    def _model_output_limit(self) -> int | None:
        value = (self._entry() or {}).get("max_output_tokens")
        return int(value) if isinstance(value, (int, float)) and value else None

    def image_refusal(self) -> str | None:
        return None if modelmap.supports_vision(self.model) else modelmap.no_vision(self.model)

    def max_output_tokens(self) -> int | None:
        known = self._model_output_limit()
        return turn_params.output_limit(self.output_override, known) if self.output_override else known

    def _usage(self, raw: Any) -> Usage:
        c = counts(raw)
        if self.prices is not None:
            prompt = c.input + c.cache_read + c.cache_write
            cost: float | None = max(0.0, (prompt * self.prices.input + c.output * self.prices.output) / 1e6)
        else:
            cost = modelmap.cost(self.model, c.input, c.output, c.cache_read, c.cache_write)
            cost = None if cost is None else max(0.0, cost)
        return Usage(c.input, c.output, c.cache_read, c.cache_write, cost=cost or 0.0, priced=cost is not None)

    # -- the request ---------------------------------------------------------------------------------
    def _key(self) -> str:
        if self.api_key is not None:
            return self.api_key
        need = key_need(self.model, self.api_base)
        if need.present:
            return os.environ[need.var]
        if need.provider == "openai" and need.base:
            return "sk-no-key-required"  # local OpenAI-compatible servers accept any key
        raise ModelError(
            f"Missing API key for {self.model}",
            kind="auth",
            retryable=False,
            hint=no_key_help(self.model, key_var(self.model)),
        )

    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], max_tokens: int | None
    ) -> tuple[dict[str, str], bytes]:
        key = self._sent_key = self._key()
        name = self.model.split("/", 1)[1]
        if max_tokens is None:  # an agent turn: the model's limit (summaries pass their own)
            effort = self.effort if modelmap.supports_reasoning(self.model) else None
            params = turn_params.for_turn(effort, self.output_override, self._model_output_limit())
        else:
            params = {"max_tokens": max_tokens}
        if not anthropic_served(self.model):
            messages = turn_params.without_thinking_blocks(messages)
        if self.prompt_cache:
            messages, tools = with_breakpoints(messages, tools)
        if self.route.wire == "anthropic":
            from flue_tui.model import wire_anthropic

            headers = {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION, "accept": "application/json"}
            return headers, wire_anthropic.body(name, messages, tools, params)
        return {"Authorization": f"Bearer {key}"}, wire_openai.body(name, messages, tools, params)

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._http is None or self._http[0] is not loop:
            client = transport.new_client(self.timeout, self.route.url)
            self._http = (loop, client)
        return self._http[1]

    async def _send(self, headers: dict[str, str], payload: bytes) -> Any:
        """The request, through the relay when one runs (relay.py), else this process's client."""
        beside = relay.current()
        if beside is not None:
            response = await beside.send(self.route.url, headers, payload, self.timeout)
            if response is not None:
                return response
        http = self._client()
        request = http.build_request("POST", self.route.url, headers=headers, content=payload)
        return await http.send(request, stream=True)

    # -- the turn ------------------------------------------------------------------------------------
    async def stream_turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, max_tokens: int | None = None
    ) -> AsyncIterator[StreamItem]:
        headers, payload = self._request(messages, tools, max_tokens)
        headers["content-type"] = "application/json"
        fold = Fold(self._usage, self.max_reply_chars)
        parse = _anthropic_parser() if self.route.wire == "anthropic" else _openai_chunk
        response = None
        bounded = None
        try:
            response = await within(self.idle_timeout, self._send(headers, payload))
            if response.status_code >= 400:
                raise await self._http_error(response)
            if response.status_code >= 300:  # never followed: the key stays with the address configured
                where = " ".join(response.headers.get("location", "").split())[:200] or "nowhere"
                text = f"a redirect to {where}, not followed (set the API base to the address it names)"
                raise self._error("bad_request", text, response.status_code)
            kind = response.headers.get("content-type", "")
            if "text/event-stream" not in kind and "json" in kind:
                raise ModelError(
                    f"The provider answered with {kind.split(';')[0]} instead of an event stream.",
                    kind="server",
                    retryable=True,
                )
            bounded = IdleBounded(events(response.aiter_bytes()), self.idle_timeout)
            async for name, data in bounded:
                chunk = parse(name, data)
                if chunk is None:  # [DONE], a ping, an event that carries nothing the fold reads
                    continue
                for item in fold.add(chunk):
                    yield item
                if fold.cut:
                    break
            if not fold.cut:
                fold.end()
        except ModelError:
            raise
        except Exception as exc:
            raise self._map_error(exc) from None
        finally:
            if bounded is not None:
                bounded.close()
            if response is not None:
                try:
                    await response.aclose()
                except Exception:
                    pass
        for item in fold.close(self.model, local=False):
            yield item

    async def _http_error(self, response: Any) -> ModelError:
        """An HTTP error as the litellm path words it: the provider's message from its body."""
        raw = b""
        try:
            async for piece in response.aiter_bytes():
                raw += piece
                if len(raw) > MAX_ERROR_BODY:
                    break
        except Exception:
            pass
        text = raw[:MAX_ERROR_BODY].decode("utf-8", "replace")
        status = response.status_code
        failure = _status_failure(status, text)
        if self.route.wire == "anthropic":
            status = 500 if status == 529 else status  # litellm reports Anthropic's 529 (overloaded) as 500
        else:
            text = _openai_message(text)
        return self._error(failure, text or f"Error code: {status}", status)

    def _error(self, failure: Any, raw: str, status: int | None) -> ModelError:
        if self._sent_key and len(self._sent_key) >= 8:
            raw = raw.replace(self._sent_key, "[API key]")  # a hostile or careless server echoing it back
        message = readable(raw, provider=provider_of(self.model), status=status)
        return model_error(failure, message, status, model=self.model, api_base=self.api_base)

    def _map_error(self, exc: BaseException) -> ModelError:
        if isinstance(exc, ProviderFailure):
            return self._error(_status_failure(exc.status, exc.message), exc.message, exc.status)
        if isinstance(exc, (Malformed, StreamFault)):
            text = str(exc) if isinstance(exc, StreamFault) else f"The provider sent a malformed stream event: {exc}"
            return self._error("connection", text, None)
        if isinstance(exc, StreamEndedEarly):
            return self._error("other", str(exc), None)
        kind, text = (exc.kind, exc.text) if isinstance(exc, relay.RelayFailure) else transport.failure(exc)
        if kind == "connect":
            return self._error("connection", "Connection error.", None)
        if kind == "transport":
            return self._error("connection", CUT_MESSAGE, None)
        if kind == "relay":
            return self._error("connection", RELAY_ENDED, None)
        if kind == "local":
            return self._error("bad_request", LOCAL_REFUSAL, None)
        return self._error("other", text, None)


def _openai_chunk(name: str, data: str) -> Any:
    return wire_openai.chunk(data)


def _anthropic_parser() -> Any:
    from flue_tui.model import wire_anthropic

    return wire_anthropic.Parser().chunk


def _openai_message(text: str) -> str:
    """The message of an OpenAI error body, as litellm (through the openai SDK) reports it: the
    message alone, without the error's type."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else text


def _status_failure(status: int, text: str) -> Any:
    if status == 401:
        return "auth"
    if status == 404:
        return "not_found"
    if status == 429:
        return "rate_limit"
    lowered = text.lower()
    if status == 400 and any(
        marker in lowered for marker in ("context_length_exceeded", "maximum context length", "prompt is too long")
    ):
        return "overflow"
    if status in (400, 422):
        return "bad_request"
    return "other"
