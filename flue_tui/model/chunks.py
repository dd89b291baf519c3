"""Where a turn's chunks come from: litellm's provider parsers, read from under its stream wrapper.

litellm does everything provider-specific: it picks the route, builds and signs the request, sends
it, maps a failed response to its exception types, and parses every streamed event with the
provider's own parser (Anthropic thinking blocks with signatures, cache usage, Ollama, tool-call
deltas...). What flue skips is `CustomStreamWrapper`, the generic layer litellm puts on top for its
logging, cost callbacks, fallbacks and repetition check: per-chunk bookkeeping flue never reads and
most of a stream's CPU (docs/streaming.md). The `openai/` route's parser is the openai SDK (it
builds pydantic objects by reflection for every chunk), so its response body goes through the
parser litellm uses for every OpenAI-compatible provider it calls itself. A stream not on the allow-list is read through the
wrapper as before: correct, just not faster.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

EOF_MESSAGE = "Connection lost: the stream ended before the model finished its reply"


class StreamEndedEarly(ConnectionError):
    """The body ended (cleanly, no [DONE]) before any finish_reason: a cut reply, never a whole one.
    The wrapper checks this itself; read from under it, flue must."""


def provider_chunks(wrapper: Any) -> tuple[AsyncIterator[Any], bool]:
    """litellm's provider-level chunks under `wrapper`, and whether they came from under it (True)
    or are the wrapper itself (False: a route not on the allow-list)."""
    inner = getattr(wrapper, "completion_stream", None)
    if inner is None:
        return wrapper, False
    from litellm.llms.anthropic.chat.handler import ModelResponseIterator as AnthropicIterator
    from litellm.llms.base_llm.base_model_iterator import BaseModelResponseIterator

    # An allow-list, not "any async iterator": these yield ModelResponseStream objects (or litellm's
    # GenericStreamingChunk dicts); an unknown iterator may yield bytes or SDK events.
    if isinstance(inner, (BaseModelResponseIterator, AnthropicIterator)):
        return inner, True  # litellm's own HTTP handler (Anthropic, Groq, OpenRouter, Ollama, vLLM, ...)
    import openai

    if isinstance(inner, openai.AsyncStream):
        from litellm.llms.custom_httpx.sse_lines import aiter_sse_lines
        from litellm.llms.openai.chat.gpt_transformation import OpenAIChatCompletionStreamingHandler

        parser = OpenAIChatCompletionStreamingHandler(
            streaming_response=aiter_sse_lines(inner.response.aiter_text()), sync_stream=False
        )
        return parser.__aiter__(), True
    return wrapper, False


# The fold's chunk shape (fold.py), for chunks litellm does not build: its GenericStreamingChunk
# dicts (below) and the direct path's (wire_openai.py, wire_anthropic.py).
@dataclass(slots=True)
class Delta:
    """What one streamed chunk adds to the reply: text, tool call pieces, thinking."""

    content: str | None
    tool_calls: list[Any] | None
    reasoning_content: str | None = None
    thinking_blocks: list[Any] | None = None


@dataclass(slots=True)
class Choice:
    """A streamed chunk's one choice: its delta, and why the reply stopped if it did."""

    delta: Delta
    finish_reason: str | None


@dataclass(slots=True)
class Chunk:
    """One streamed chunk in the shape the fold reads, whichever path it came from."""

    choices: list[Choice]
    usage: Any


def from_generic(litellm: Any, chunk: dict[str, Any]) -> Chunk:
    """litellm's GenericStreamingChunk dict (some parsers' shape, e.g. Anthropic's `event:` lines)
    in the shape of a ModelResponseStream, so one fold reads every route."""
    raw_usage = chunk.get("usage")
    usage = None
    if isinstance(raw_usage, dict) and raw_usage:
        try:
            usage = litellm.Usage(**raw_usage)
        except Exception:
            usage = None  # a usage litellm cannot read is no usage
    tool = chunk.get("tool_use")
    calls = [tool] if isinstance(tool, dict) else None
    # [DONE] is "stop" with is_finished; an empty finish_reason is no reason at all.
    finish = (chunk.get("finish_reason") or "stop") if chunk.get("is_finished") else None
    text = chunk.get("text")
    return Chunk([Choice(Delta(text if isinstance(text, str) else None, calls), finish)], usage)


def mapped(exc: Exception, model: str, wrapper: Any) -> Exception:
    """A provider failure read from under the wrapper, as litellm's own types: the same
    `exception_type` call the wrapper makes (without its Router-only MidStreamFallbackError)."""
    from litellm.litellm_core_utils.exception_mapping_utils import exception_type

    if isinstance(exc, json.JSONDecodeError):
        exc = ValueError(f"The provider sent a malformed stream event: {exc}")
    try:
        result = exception_type(
            model=model, custom_llm_provider=getattr(wrapper, "custom_llm_provider", None), original_exception=exc
        )
    except Exception as raised:  # exception_type raises the mapped exception
        return raised
    return result if isinstance(result, Exception) else exc
