"""Streams one assistant turn through litellm (imported by `loader.py`): requests, chunks, usage, errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from flue_tui.config.endpoints import base_url
from flue_tui.core.messages import Usage
from flue_tui.model import modelmap, ollama, turn_params
from flue_tui.model.base import ModelError, StreamItem, UsageChunk
from flue_tui.model.caching import anthropic_served, with_breakpoints
from flue_tui.model.chunks import StreamEndedEarly, from_generic, mapped, provider_chunks
from flue_tui.model.errors import CUT_MESSAGE, cut_connection, made_locally, readable
from flue_tui.model.failures import IDLE_TIMEOUT_S, MAX_REPLY_CHARS, Failure, IdleBounded, model_error, within
from flue_tui.model.fold import EMPTY_STREAM_MESSAGE, Fold, counts
from flue_tui.model.keyhelp import no_key_help
from flue_tui.model.keys import key_need, key_var, provider_of
from flue_tui.model.loader import aget_litellm, get_litellm
from flue_tui.model.pricing import Prices, is_local, turn_cost

__all__ = ["EMPTY_STREAM_MESSAGE", "LiteLLMClient"]

_CONNECTION_TYPES = {
    "APIConnectionError",
    "ConnectError",
    "ConnectTimeout",
    "ClientConnectorError",
    "ConnectionRefusedError",
    "ClientConnectionError",
}


def _is_connection_failure(exc: BaseException) -> bool:
    """litellm reports an unreachable OpenAI-compatible endpoint as a 500 "Connection error.";
    the transport's own exception further down the chain tells the truth."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 10:
        if type(current).__name__ in _CONNECTION_TYPES or "Connection error" in str(current):
            return True
        current = current.__cause__ or current.__context__
        seen += 1
    return False


# litellm's stream wrapper keeps every chunk object for its own bookkeeping; past
# this many, the middle is dropped (the head holds e.g. Anthropic's input usage, the tail is what
# its repetition check reads), so a long reply costs memory for its text only.
KEEP_CHUNKS = 256


def _trim_retained(stream: Any) -> None:
    kept = getattr(stream, "chunks", None)
    if isinstance(kept, list) and len(kept) > 2 * KEEP_CHUNKS:
        del kept[KEEP_CHUNKS // 4 : -KEEP_CHUNKS]


class _EarlyUsage:
    """The usage a provider reports before the end (Anthropic's input tokens come first). litellm
    holds it back until the stream ends, but keeps the chunk in the stream's `chunks`: looked for
    there until found, so an aborted turn still counts what the provider has already billed."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.pending = isinstance(getattr(stream, "chunks", None), list)
        self._scanned = 0

    def find(self) -> Any:
        chunks = self.stream.chunks
        for chunk in chunks[self._scanned :]:
            if getattr(chunk, "usage", None):
                self.pending = False
                return chunk.usage
        self._scanned = len(chunks)
        return None


def _failure(litellm: Any, exc: BaseException, message: str, status: int | None, connection: bool) -> Failure:
    """What went wrong, by litellm's exception types (the direct path tells it by status)."""
    if isinstance(exc, litellm.ContextWindowExceededError):
        return "overflow"
    if isinstance(exc, litellm.AuthenticationError):
        return "auth"
    if isinstance(exc, litellm.NotFoundError) or "LLM Provider NOT provided" in message:
        return "not_found"
    if connection or (isinstance(exc, litellm.APIConnectionError) and status is None):
        return "connection"
    if isinstance(exc, litellm.RateLimitError):
        return "rate_limit"
    if isinstance(exc, litellm.BadRequestError):
        return "bad_request"
    return "other"


class LiteLLMClient:
    """Streams one assistant turn through litellm.acompletion."""

    def __init__(
        self,
        model: str,
        *,
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
        self.model = model
        self.effort = effort  # off/low/medium/high; /effort changes it on a live session
        self.output_override = max_output_tokens
        # A user-set window wins over litellm's map (which knows nothing of local models).
        self.context_override = context_window
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.max_reply_chars = max_reply_chars
        self.prompt_cache = prompt_cache and anthropic_served(model)
        self.prices = prices
        self._num_ctx: int | None = None  # Ollama: looked up once from /api/show
        # litellm's model map does not change during a run: looked up once per model, not per turn.
        self._known: dict[str, tuple[dict[str, Any] | None, bool]] = {}
        self.last_direct = False  # whether the last turn was read from under litellm's wrapper (chunks.py)

    def _ollama_base(self) -> str:
        return self.api_base or base_url()

    def _ollama_ctx(self, retry: bool = False) -> int | None:
        """0 remembers a failed lookup, so sync callers ask once; each turn retries (off the loop)."""
        if self.context_override:
            return self.context_override
        if self._num_ctx is None or (retry and not self._num_ctx):
            self._num_ctx = ollama.context_length(self._ollama_base(), self.model) or 0
        return self._num_ctx or None

    def _request_kwargs(self, litellm: Any) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if ollama.is_ollama(self.model):
            # Local and keyless: litellm's key check would refuse it without OLLAMA_API_BASE.
            kwargs["api_base"] = self._ollama_base()
            num_ctx = self._ollama_ctx()
            if num_ctx:
                kwargs["num_ctx"] = num_ctx
            if self.api_key is not None:
                kwargs["api_key"] = self.api_key
            return kwargs
        if self.api_base:
            kwargs["api_base"] = self.api_base
        key = self.api_key
        need = key_need(self.model, self.api_base)
        if key is None and need.provider == "openai" and need.base and not need.present:
            key = "sk-no-key-required"  # local OpenAI-compatible servers accept any key
        if key is None:
            try:
                check = litellm.validate_environment(model=self.model)
            except Exception:
                check = {}
            if check.get("missing_keys"):
                var = key_var(self.model)
                raise ModelError(
                    f"Missing API key for {self.model}", kind="auth", retryable=False, hint=no_key_help(self.model, var)
                )
        if key is not None:
            kwargs["api_key"] = key
        return kwargs

    def _map_error(self, exc: BaseException) -> ModelError:
        litellm = get_litellm()
        status = getattr(exc, "status_code", None)
        connection = isinstance(exc, litellm.Timeout) or _is_connection_failure(exc)
        if not isinstance(status, int) or status < 400 or connection:
            status = None  # litellm gives transport failures a made-up 500
        raw = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        if connection and cut_connection(raw):
            raw = CUT_MESSAGE  # the direct path's sentence for the same break (errors.py)
        message = readable(
            raw,
            provider=provider_of(self.model),
            status=status,
            local=made_locally(exc) and not connection,
        )
        failure = _failure(litellm, exc, message, status, connection)
        return model_error(failure, message, status, model=self.model, api_base=self.api_base)

    async def stream_turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, max_tokens: int | None = None
    ) -> AsyncIterator[StreamItem]:
        litellm = await aget_litellm()  # a first import must not freeze the event loop
        if ollama.is_ollama(self.model) and not self._num_ctx and not self.context_override:
            import asyncio

            await asyncio.to_thread(self._ollama_ctx, True)  # an HTTP lookup: keep it off the loop
        kwargs = self._request_kwargs(litellm)
        if max_tokens is None:  # an agent turn: the model's limit (summaries pass their own)
            effort = self.effort if self._lookup(litellm)[1] else None
            kwargs.update(turn_params.for_turn(effort, self.output_override, self._info("max_output_tokens")))
        else:
            kwargs["max_tokens"] = max_tokens
        if not anthropic_served(self.model):
            # Thinking blocks are Claude's (kept when /model switched away from it): litellm would
            # pass them on verbatim to an OpenAI-style API, which refuses unknown message fields.
            messages = turn_params.without_thinking_blocks(messages)
        if self.prompt_cache:
            messages, tools = with_breakpoints(messages, tools)
        if tools:
            kwargs["tools"] = tools
        fold = Fold(lambda raw: self._usage(litellm, raw), self.max_reply_chars)
        direct = False
        stream = None
        try:
            stream = await within(
                self.idle_timeout,
                litellm.acompletion(
                    model=ollama.chat_model(self.model),
                    messages=messages,
                    stream=True,
                    stream_options={"include_usage": True},
                    num_retries=0,
                    max_retries=0,
                    timeout=self.timeout,
                    **kwargs,
                ),
            )
            # One fold for every route (fold.py); only where the chunks come from differs (chunks.py).
            chunks, direct = provider_chunks(stream)
            self.last_direct = direct
            early = None if direct else _EarlyUsage(stream)
            bounded = IdleBounded(chunks, self.idle_timeout)
            try:
                async for chunk in bounded:
                    if isinstance(chunk, dict):
                        chunk = from_generic(litellm, chunk)
                    had_usage = bool(getattr(chunk, "usage", None))
                    for item in fold.add(chunk):
                        yield item
                    if not had_usage and early is not None and early.pending and (seen := early.find()) is not None:
                        yield UsageChunk(self._usage(litellm, seen))
                    if early is not None:
                        _trim_retained(stream)  # after the early-usage look: that reads the head it keeps
                    if fold.cut:
                        break
                if direct and not fold.cut:
                    fold.end()
            except (ModelError, StreamEndedEarly):
                raise
            except Exception as exc:
                if not direct:
                    raise
                raise mapped(exc, self.model, stream) from exc  # what the wrapper would have raised
            finally:
                bounded.close()
        except ModelError:
            raise
        except Exception as exc:  # litellm wraps provider and transport failures in its own types
            raise self._map_error(exc) from exc
        finally:
            if stream is not None and hasattr(stream, "aclose"):
                try:
                    await stream.aclose()
                except Exception:
                    pass
        for item in fold.close(self.model, local=is_local(self.model) or not direct):
            yield item

    def _usage(self, litellm: Any, raw: Any) -> Usage:
        c = counts(raw)
        cost = turn_cost(litellm, self.model, raw, self.prices)
        return Usage(c.input, c.output, c.cache_read, c.cache_write, cost=cost or 0.0, priced=cost is not None)

    def _info(self, *keys: str) -> int | None:
        if self.context_override and "max_input_tokens" in keys:
            return self.context_override
        if ollama.is_ollama(self.model):
            # The window Ollama really loads is the num_ctx we send. litellm's lookup would ask
            # /api/show at OLLAMA_API_BASE or localhost, not at OLLAMA_HOST, and block while it does.
            return self._ollama_ctx() if "max_input_tokens" in keys else None
        info = self._lookup(get_litellm())[0]
        if info is None:
            return None  # unmapped local models are fine
        value = next((info.get(k) for k in keys if info.get(k)), None)
        return int(value) if value else None

    def _lookup(self, litellm: Any) -> tuple[dict[str, Any] | None, bool]:
        """(litellm's model info or None, whether to send an effort), once per model."""
        known = self._known.get(self.model)
        if known is None:
            try:
                info: dict[str, Any] | None = dict(litellm.get_model_info(self.model))
            except Exception:
                info = None
            known = self._known[self.model] = (info, turn_params.can_reason(litellm, self.model))
        return known

    def context_window(self) -> int | None:
        return self._info("max_input_tokens", "max_tokens")

    def image_refusal(self) -> str | None:
        return None if modelmap.supports_vision(self.model) else modelmap.no_vision(self.model)

    def max_output_tokens(self) -> int | None:
        known = self._info("max_output_tokens")
        return turn_params.output_limit(self.output_override, known) if self.output_override else known
