"""A failed request as a ModelError, the same for both paths: its kind, whether it is retried, and
the hint that tells the user the fix. litellm_client.py classifies by litellm's exception types,
direct_client.py by HTTP status and transport failure; both end here, so a 401, an unknown model or
an unreachable server reads the same whichever path the model took (errors.py words the message).
Also the provider-fault bounds both paths apply: the idle timeout and the reply-size bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, Literal

from flue_tui.config.endpoints import base_url
from flue_tui.model import ollama
from flue_tui.model.base import ModelError
from flue_tui.model.keys import key_var, openai_base, provider_of

# What went wrong, as the paths tell it (litellm's exception types, or status and transport).
Failure = Literal["overflow", "auth", "not_found", "connection", "rate_limit", "bad_request", "other"]

# Provider-fault bounds (config `idle_timeout` / `max_reply_chars`). A reply above ~2M characters
# is past every model's output limit: only a broken or hostile stream gets there.
IDLE_TIMEOUT_S = 120.0
MAX_REPLY_CHARS = 2_000_000


def endpoint(model: str, api_base: str | None) -> str:
    """Where a request for `model` goes, as a hint names it."""
    if api_base:
        return api_base
    if ollama.is_ollama(model):
        return f"Ollama at {base_url()}"
    if provider_of(model) == "openai":
        return openai_base() or "the OpenAI API"
    return f"the {provider_of(model) or 'provider'} API"


def model_error(failure: Failure, message: str, status: int | None, *, model: str, api_base: str | None) -> ModelError:
    if failure == "overflow":
        return ModelError(message, kind="overflow", status=status, retryable=False)
    if failure == "auth":
        return ModelError(
            message,
            kind="auth",
            status=status,
            retryable=False,
            hint=f"The provider rejected the API key for {model}: check {key_var(model)}.",
        )
    if ollama.is_ollama(model) and status == 404:
        name = model.split("/", 1)[1]
        return ModelError(
            message,
            kind="model_unknown",
            status=status,
            retryable=False,
            hint=f"Ollama has no model '{name}': `ollama pull {name}`, or pick one from `ollama list`.",
        )
    if failure == "not_found":
        return ModelError(
            message,
            kind="model_unknown",
            status=status,
            retryable=False,
            hint=f"Unknown model '{model}': model ids are provider/model, "
            "e.g. anthropic/claude-sonnet-4-5 or openai/gpt-4.1.",
        )
    if failure == "connection":
        fix = (
            "start it (`ollama serve`) or set OLLAMA_HOST"
            if ollama.is_ollama(model)
            else "check the network, or OPENAI_BASE_URL for a local server"
        )
        return ModelError(
            message,
            kind="connection",
            status=status,
            retryable=True,
            hint=f"Could not reach {endpoint(model, api_base)}: {fix}.",
        )
    if failure == "rate_limit":
        return ModelError(message, kind="rate_limit", status=status, retryable=True)
    if isinstance(status, int) and status >= 500:
        return ModelError(message, kind="server", status=status, retryable=True)
    if failure == "bad_request":
        # Providers word overflow differently; litellm maps only some of them.
        kind = "overflow" if "context" in message.lower() and "length" in message.lower() else "bad_request"
        return ModelError(message, kind=kind, status=status, retryable=False)
    return ModelError(message, status=status)


def idle_error(seconds: float) -> ModelError:
    # Worded so Flue's transient test ("timed out") agrees that it is retried.
    return ModelError(
        f"The provider sent nothing for {seconds:g} s: the request timed out (idle timeout).",
        kind="connection",
        retryable=True,
        hint=f"The provider sent nothing for {seconds:g} s, on every try. Raise "
        "idle_timeout in config.toml (or FLUE_IDLE_TIMEOUT) if the model is slow to start.",
    )


async def within(seconds: float, awaitable: Awaitable[Any]) -> Any:
    """Await it, or raise the idle-timeout error when nothing arrives for `seconds`."""
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await awaitable
    except TimeoutError:
        if scope.expired():
            raise idle_error(seconds) from None
        raise  # the transport's own timeout: mapped like any other failure


class IdleBounded:
    """A stream's chunks, each within `seconds` of the previous one. Only the wait for the next
    chunk is timed: the consumer's own time between chunks is not the provider's silence.

    One timer watches the whole stream (a scope per chunk, as `within` is, was a visible share of
    the direct path's CPU in a fast stream; docs/streaming.md): it notes when a wait began, re-arms
    itself for that wait's deadline, and cancels the waiting task only when one wait has lasted
    `seconds`. `close()` stops it; the clients call it when they stop reading."""

    def __init__(self, stream: Any, seconds: float) -> None:
        self.chunks = stream.__aiter__()
        self.seconds = seconds
        self._since: float | None = None  # loop time the current wait began; None between waits
        self._task: asyncio.Task[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._expired = False
        self._closed = False

    def __aiter__(self) -> IdleBounded:
        return self

    async def __anext__(self) -> Any:
        loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._since = loop.time()
        if self._timer is None and not self._closed:
            self._timer = loop.call_at(self._since + self.seconds, self._check, loop)
        try:
            return await self.chunks.__anext__()
        except asyncio.CancelledError:
            if self._expired and self._task is not None and self._task.uncancel() == 0:
                raise idle_error(self.seconds) from None
            raise  # someone else's cancel (Esc, quit): theirs, not a timeout
        except StopAsyncIteration:
            self.close()
            raise
        finally:
            self._since = None

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        if self._closed or self._task is None or self._task.done():
            return
        since = self._since
        now = loop.time()
        if since is not None and now >= since + self.seconds - 0.001:  # call_at may fire a hair early
            self._expired = True
            self._closed = True
            self._task.cancel()
            return
        self._timer = loop.call_at((now if since is None else since) + self.seconds, self._check, loop)

    def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
