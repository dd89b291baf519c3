"""Prototype (not wired in yet): stream a turn through litellm without its per-chunk wrapper.

litellm still does everything provider-specific: it picks the route, builds and signs the request,
sends it, maps a failed response to its exception types, and parses every streamed event with the
provider's own chunk parser (Anthropic thinking blocks with signatures, cache usage, Ollama, tool-call
deltas...). What this skips is `CustomStreamWrapper`, the generic layer litellm puts on top for its
logging, cost callbacks, fallbacks and repetition check: ~300 µs per chunk of bookkeeping flue never
reads (docs/streaming.md). For the `openai/` route, whose parser is the openai SDK (~80 µs per chunk
building pydantic objects by reflection), the SDK's response body goes through the same parser litellm
uses for every OpenAI-compatible provider it calls itself. A stream this does not recognise is read
through the wrapper as before, so no route is lost.

To be merged into LiteLLMClient.stream_turn once the provider work (issue 12) has landed.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from flue_tui.core.messages import Usage
from flue_tui.model.base import ModelError, StreamItem, TextChunk, ThinkingChunk, TurnResponse
from flue_tui.model.assembly import ToolCallAccumulator
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.model.loader import aget_litellm

EOF_MESSAGE = "Connection lost: the stream ended before the model finished its reply"


class StreamEndedEarly(ConnectionError):
    """The body ended (cleanly, no [DONE]) before any finish_reason: a cut reply, never a whole one."""


def provider_chunks(wrapper: Any) -> tuple[AsyncIterator[Any], bool]:
    """litellm's provider-level chunks under `wrapper`, and whether they came from under it (True) or
    are the wrapper itself (False: a route this prototype does not know, read the slow way)."""
    inner = getattr(wrapper, "completion_stream", None)
    from litellm.llms.anthropic.chat.handler import ModelResponseIterator as AnthropicIterator
    from litellm.llms.base_llm.base_model_iterator import BaseModelResponseIterator

    # An allow-list, not "any async iterator": these yield ModelResponseStream (or GenericStreamingChunk)
    # objects, which _Turn reads; an unknown iterator may yield bytes or SDK events, so it stays wrapped.
    if isinstance(inner, (BaseModelResponseIterator, AnthropicIterator)):
        return inner, True  # litellm's own HTTP handler (Anthropic, Groq, OpenRouter, Ollama, vLLM, ...)
    import openai

    if isinstance(inner, openai.AsyncStream):
        # openai/ goes through the SDK; hand its (public) response body to litellm's OpenAI parser.
        from litellm.llms.custom_httpx.sse_lines import aiter_sse_lines
        from litellm.llms.openai.chat.gpt_transformation import OpenAIChatCompletionStreamingHandler

        parser = OpenAIChatCompletionStreamingHandler(
            streaming_response=aiter_sse_lines(inner.response.aiter_text()), sync_stream=False)
        return parser.__aiter__(), True
    return wrapper, False


class _Turn:
    """Folds litellm chunks (ModelResponseStream, or its GenericStreamingChunk dicts) into one turn."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.thinking_blocks: list[dict[str, Any]] = []
        self.calls = ToolCallAccumulator()
        self.finish: str | None = None
        self.usage: Any = None

    def add(self, chunk: Any) -> list[StreamItem]:
        if isinstance(chunk, dict):
            return self._add_generic(chunk)
        out: list[StreamItem] = []
        usage = getattr(chunk, "usage", None)
        if usage:
            self.usage = usage  # providers report cumulative usage; the last one is the total
        if not chunk.choices:
            return out
        choice = chunk.choices[0]
        delta = choice.delta
        reasoning = getattr(delta, "reasoning_content", None)
        if reasoning:
            self.thinking.append(reasoning)
            out.append(ThinkingChunk(reasoning))
        blocks = getattr(delta, "thinking_blocks", None)
        if blocks:
            self.thinking_blocks.extend(dict(b) for b in blocks)
        if delta.content:
            self.text.append(delta.content)
            out.append(TextChunk(delta.content))
        if delta.tool_calls:
            self.calls.add(delta.tool_calls)
        if choice.finish_reason:
            self.finish = choice.finish_reason
        return out

    def _add_generic(self, chunk: dict[str, Any]) -> list[StreamItem]:
        if chunk.get("usage"):
            self.usage = SimpleNamespace(**chunk["usage"])
        tool = chunk.get("tool_use")
        if tool:
            fn = tool.get("function") or {}
            self.calls.add([SimpleNamespace(index=tool.get("index"), id=tool.get("id"), function=SimpleNamespace(
                name=fn.get("name"), arguments=fn.get("arguments")))])
        if chunk.get("is_finished") and self.finish is None:
            self.finish = chunk.get("finish_reason") or "stop"  # [DONE]: never overrides a real reason
        text = chunk.get("text")
        if text:
            self.text.append(text)
            return [TextChunk(text)]
        return []


class FastStreamClient(LiteLLMClient):
    """LiteLLMClient whose turns skip litellm's per-chunk wrapper (see the module docstring)."""

    last_thinking_blocks: tuple[dict[str, Any], ...] = ()  # issue 12 moves these into the message
    last_direct: bool = False  # whether the last turn skipped the wrapper (for tests and the bench)
    last_raw_usage: Any = None  # litellm's Usage of the last turn (reasoning tokens, cache details)

    async def stream_turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                          max_tokens: int | None = None) -> AsyncIterator[StreamItem]:
        litellm = await aget_litellm()
        kwargs = self._request_kwargs(litellm)
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        if tools:
            kwargs["tools"] = tools
        turn = _Turn()
        wrapper = None
        try:
            wrapper = await litellm.acompletion(
                model=self.model, messages=messages, stream=True,
                stream_options={"include_usage": True}, num_retries=0, max_retries=0,
                timeout=self.timeout, **kwargs)
            chunks, direct = provider_chunks(wrapper)
            self.last_direct = direct
            try:
                async for chunk in chunks:
                    for item in turn.add(chunk):
                        yield item
                if direct and turn.finish is None:
                    raise StreamEndedEarly(EOF_MESSAGE)
            except Exception as exc:
                if not direct or isinstance(exc, StreamEndedEarly):
                    raise
                # What the wrapper would have done: map the provider's error to litellm's types.
                raise _mapped(litellm, exc, self.model, wrapper) from exc
        except ModelError:
            raise
        except Exception as exc:
            raise self._map_error(exc) from exc
        finally:
            if wrapper is not None and hasattr(wrapper, "aclose"):
                try:
                    await wrapper.aclose()
                except Exception:
                    pass
        self.last_thinking_blocks = tuple(turn.thinking_blocks)
        self.last_raw_usage = turn.usage
        calls = turn.calls.finish()
        finish = turn.finish or "stop"
        if calls and finish == "stop":
            finish = "tool_calls"
        usage = self._usage(litellm, turn.usage) if turn.usage is not None else Usage()
        yield TurnResponse(text="".join(turn.text), thinking="".join(turn.thinking), tool_calls=calls,
                           finish_reason=finish, usage=usage, model=self.model)


def _mapped(litellm: Any, exc: Exception, model: str, wrapper: Any) -> Exception:
    from litellm.litellm_core_utils.exception_mapping_utils import exception_type

    if isinstance(exc, json.JSONDecodeError):
        exc = ValueError(f"The provider sent a malformed stream event: {exc}")
    try:
        result = exception_type(model=model, custom_llm_provider=getattr(wrapper, "custom_llm_provider", None),
                                original_exception=exc)
    except Exception as mapped:  # exception_type raises the mapped exception
        return mapped
    return result if isinstance(result, Exception) else exc
