"""The only module that imports litellm: lazily, after setting its environment, warmable in a thread."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import AsyncIterator
from typing import Any

from flue_tui.agent.messages import Usage
from flue_tui.model import ollama, turn_params
from flue_tui.model.assembly import ThinkingFolder, ToolCallAccumulator
from flue_tui.model.base import ModelError, StreamItem, TextChunk, ThinkingChunk, TurnResponse, UsageChunk
from flue_tui.model.caching import anthropic_served, with_breakpoints
from flue_tui.model.errors import made_locally, readable
from flue_tui.model.pricing import Prices, turn_cost

# Set before litellm is imported. PRODUCTION stops `import litellm` from loading the cwd's .env into
# our environment (and so into every command the agent runs); the other two keep import offline.
_LITELLM_ENV = {
    "LITELLM_MODE": "PRODUCTION",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}

_lock = threading.Lock()
_litellm: Any = None

# Provider → the variable that holds its key (for error hints).
_KEY_VARS = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY", "groq": "GROQ_API_KEY", "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY", "xai": "XAI_API_KEY", "together_ai": "TOGETHERAI_API_KEY",
}


def get_litellm() -> Any:
    """Import litellm once (thread-safe); call from a worker thread to warm it in the background."""
    global _litellm
    if _litellm is None:
        with _lock:
            if _litellm is None:
                for key, value in _LITELLM_ENV.items():
                    os.environ[key] = value
                import litellm

                litellm.suppress_debug_info = True  # no "Provider List" / "Give Feedback" prints
                litellm.drop_params = True
                litellm.set_verbose = False
                _litellm = litellm
    return _litellm


async def aget_litellm() -> Any:
    """Await the import without blocking the event loop. A daemon thread, not the default executor:
    asyncio.run() joins executor threads at exit, which would hold a SIGTERM'd run for seconds."""
    import asyncio

    if _litellm is not None:
        return _litellm
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def work() -> None:
        try:
            result: Any = get_litellm()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            # Bound as a default: Python unbinds `exc` when the except block ends, before the
            # callback runs on the loop, and a failed import would then hang the caller.
            loop.call_soon_threadsafe(lambda error=exc: future.done() or future.set_exception(error))
            return
        loop.call_soon_threadsafe(lambda: future.done() or future.set_result(result))

    threading.Thread(target=work, name="litellm-import", daemon=True).start()
    return await future


def warm_in_background() -> None:
    """Start importing litellm now so the first request does not wait for it."""
    threading.Thread(target=get_litellm, name="litellm-warm", daemon=True).start()


def provider_of(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else ""


def key_var(model: str) -> str:
    provider = provider_of(model) or "openai"
    return _KEY_VARS.get(provider, f"{provider.upper()}_API_KEY")




_CONNECTION_TYPES = {"APIConnectionError", "ConnectError", "ConnectTimeout", "ClientConnectorError",
                     "ConnectionRefusedError", "ClientConnectionError"}


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
        for chunk in chunks[self._scanned:]:
            if getattr(chunk, "usage", None):
                self.pending = False
                return chunk.usage
        self._scanned = len(chunks)
        return None


class LiteLLMClient:
    """Streams one assistant turn through litellm.acompletion."""

    def __init__(self, model: str, *, api_base: str | None = None, api_key: str | None = None,
                 timeout: float = 600.0, context_window: int | None = None, prompt_cache: bool = True,
                 prices: Prices | None = None, effort: str | None = None,
                 max_output_tokens: int | None = None) -> None:
        self.model = model
        self.effort = effort  # off/low/medium/high; /effort changes it on a live session
        self.output_override = max_output_tokens
        # A user-set window wins over litellm's map (which knows nothing of local models).
        self.context_override = context_window
        self.api_base = api_base
        self.api_key = api_key
        self.timeout = timeout
        self.prompt_cache = prompt_cache and anthropic_served(model)
        self.prices = prices
        self._num_ctx: int | None = None  # Ollama: looked up once from /api/show

    def _ollama_base(self) -> str:
        return self.api_base or ollama.base_url()

    def _ollama_ctx(self, retry: bool = False) -> int | None:
        """0 remembers a failed lookup, so sync callers ask once; each turn retries (off the loop)."""
        if self.context_override:
            return self.context_override
        if self._num_ctx is None or (retry and not self._num_ctx):
            self._num_ctx = ollama.context_length(self._ollama_base(), self.model) or 0
        return self._num_ctx or None

    def _endpoint(self) -> str:
        if self.api_base:
            return self.api_base
        if ollama.is_ollama(self.model):
            return f"Ollama at {self._ollama_base()}"
        if provider_of(self.model) == "openai":
            return os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE") or "the OpenAI API"
        return f"the {provider_of(self.model) or 'provider'} API"

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
        local_openai = provider_of(self.model) == "openai" and (
            self.api_base or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE"))
        if key is None and local_openai and not os.environ.get("OPENAI_API_KEY"):
            key = "sk-no-key-required"  # local OpenAI-compatible servers accept any key
        if key is None:
            try:
                check = litellm.validate_environment(model=self.model)
            except Exception:
                check = {}
            if check.get("missing_keys"):
                var = key_var(self.model)
                raise ModelError(f"Missing API key for {self.model}", kind="auth", retryable=False,
                                 hint=f"No API key for {self.model}: set {var} (e.g. `export {var}=...`) "
                                      "or choose another model with --model.")
        if key is not None:
            kwargs["api_key"] = key
        return kwargs

    def _map_error(self, exc: BaseException) -> ModelError:
        litellm = get_litellm()
        status = getattr(exc, "status_code", None)
        connection = isinstance(exc, litellm.Timeout) or _is_connection_failure(exc)
        if not isinstance(status, int) or status < 400 or connection:
            status = None  # litellm gives transport failures a made-up 500
        message = readable(getattr(exc, "message", None) or str(exc) or type(exc).__name__,
                           provider=provider_of(self.model), status=status,
                           local=made_locally(exc) and not connection)
        if isinstance(exc, litellm.ContextWindowExceededError):
            return ModelError(message, kind="overflow", status=status, retryable=False)
        if isinstance(exc, litellm.AuthenticationError):
            var = key_var(self.model)
            return ModelError(message, kind="auth", status=status, retryable=False,
                              hint=f"The provider rejected the API key for {self.model}: check {var}.")
        if ollama.is_ollama(self.model) and status == 404:
            name = self.model.split("/", 1)[1]
            return ModelError(message, kind="model_unknown", status=status, retryable=False,
                              hint=f"Ollama has no model '{name}': `ollama pull {name}`, or pick one from `ollama list`.")
        if isinstance(exc, litellm.NotFoundError) or "LLM Provider NOT provided" in message:
            return ModelError(message, kind="model_unknown", status=status, retryable=False,
                              hint=f"Unknown model '{self.model}': model ids are provider/model, "
                                   "e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4.1.")
        if connection or (isinstance(exc, litellm.APIConnectionError) and status is None):
            fix = ("start it (`ollama serve`) or set OLLAMA_HOST" if ollama.is_ollama(self.model)
                   else "check the network, or OPENAI_BASE_URL for a local server")
            return ModelError(message, kind="connection", status=status, retryable=True,
                              hint=f"Could not reach {self._endpoint()}: {fix}.")
        if isinstance(exc, litellm.RateLimitError):
            return ModelError(message, kind="rate_limit", status=status, retryable=True)
        if isinstance(status, int) and status >= 500:
            return ModelError(message, kind="server", status=status, retryable=True)
        if isinstance(exc, litellm.BadRequestError):
            # Providers word overflow differently; litellm maps only some of them.
            kind = "overflow" if "context" in message.lower() and "length" in message.lower() else "bad_request"
            return ModelError(message, kind=kind, status=status, retryable=False)
        return ModelError(message, status=status)

    async def stream_turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                          max_tokens: int | None = None) -> AsyncIterator[StreamItem]:
        litellm = await aget_litellm()  # a first import must not freeze the event loop
        if ollama.is_ollama(self.model) and not self._num_ctx and not self.context_override:
            import asyncio

            await asyncio.to_thread(self._ollama_ctx, True)  # an HTTP lookup: keep it off the loop
        kwargs = self._request_kwargs(litellm)
        if max_tokens is None:  # an agent turn: the model's limit (summaries pass their own)
            effort = self.effort if turn_params.can_reason(litellm, self.model) else None
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
        text: list[str] = []
        thinking: list[str] = []
        acc = ToolCallAccumulator()
        folder = ThinkingFolder()
        finish = "stop"
        usage = Usage()
        response_model = self.model
        stream = None
        try:
            stream = await litellm.acompletion(
                model=ollama.chat_model(self.model), messages=messages, stream=True,
                stream_options={"include_usage": True}, num_retries=0, max_retries=0,
                timeout=self.timeout, **kwargs)
            early = _EarlyUsage(stream)
            async for chunk in stream:
                if getattr(chunk, "usage", None):
                    usage = self._usage(litellm, chunk.usage)
                    yield UsageChunk(usage)  # kept even if the turn is aborted before it ends
                elif early.pending and (seen := early.find()) is not None:
                    yield UsageChunk(self._usage(litellm, seen))
                if not chunk.choices:
                    continue
                choice = chunk.choices[0]
                delta = choice.delta
                reasoning = getattr(delta, "reasoning_content", None)
                if reasoning:
                    thinking.append(reasoning)
                    yield ThinkingChunk(reasoning)
                if delta.content:
                    text.append(delta.content)
                    yield TextChunk(delta.content)
                if getattr(delta, "thinking_blocks", None):
                    folder.add(delta.thinking_blocks)
                if delta.tool_calls:
                    acc.add(delta.tool_calls)
                if choice.finish_reason:
                    finish = choice.finish_reason
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
        calls = acc.finish()
        if calls and finish == "stop":
            finish = "tool_calls"
        yield TurnResponse(text="".join(text), thinking="".join(thinking), tool_calls=calls,
                           finish_reason=finish, usage=usage, model=response_model,
                           thinking_blocks=folder.finish())

    def _usage(self, litellm: Any, raw: Any) -> Usage:
        def count(value: Any) -> int:  # the provider's numbers are untrusted: whole and not negative
            ok = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
            return max(0, int(value)) if ok else 0

        prompt = count(getattr(raw, "prompt_tokens", 0))
        completion = count(getattr(raw, "completion_tokens", 0))
        details = getattr(raw, "prompt_tokens_details", None)
        cache_read = min(prompt, count(getattr(details, "cached_tokens", 0))) if details else 0
        cache_write = min(prompt - cache_read, count(getattr(raw, "cache_creation_input_tokens", 0)))
        cost = turn_cost(litellm, self.model, raw, self.prices)
        return Usage(input=max(0, prompt - cache_read - cache_write), output=completion,
                     cache_read=cache_read, cache_write=cache_write, cost=cost or 0.0, priced=cost is not None)

    def _info(self, *keys: str) -> int | None:
        if self.context_override and "max_input_tokens" in keys:
            return self.context_override
        if ollama.is_ollama(self.model):
            # The window Ollama really loads is the num_ctx we send. litellm's lookup would ask
            # /api/show at OLLAMA_API_BASE or localhost, not at OLLAMA_HOST, and block while it does.
            return self._ollama_ctx() if "max_input_tokens" in keys else None
        try:
            info = get_litellm().get_model_info(self.model)
        except Exception:
            return None  # unmapped local models are fine
        value = next((info.get(k) for k in keys if info.get(k)), None)
        return int(value) if value else None

    def context_window(self) -> int | None:
        return self._info("max_input_tokens", "max_tokens")

    def max_output_tokens(self) -> int | None:
        known = self._info("max_output_tokens")
        return turn_params.output_limit(self.output_override, known) if self.output_override else known
