"""The one fold of a streamed turn: chunks in the shape of litellm's `ModelResponseStream` in,
flue's stream items out. Both paths feed it: litellm's provider parsers (litellm_client.py) and
flue's own wire parsers (wire_openai.py, wire_anthropic.py, read by direct_client.py).

A chunk is anything with `.usage` and `.choices[0].delta` (`content`, `reasoning_content`,
`thinking_blocks`, `tool_calls`) and `.choices[0].finish_reason`; usage anything with litellm's
`Usage` attributes (`prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens`,
`cache_creation_input_tokens`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flue_tui.core.messages import Usage
from flue_tui.core.surrogates import Joiner
from flue_tui.model.assembly import ThinkingFolder, ToolCallAccumulator
from flue_tui.model.base import ModelError, StreamItem, TextChunk, ThinkingChunk, TurnResponse, UsageChunk
from flue_tui.model.chunks import EOF_MESSAGE, StreamEndedEarly

# Each chunk costs at least CHUNK_COST against the reply-size bound, so a stream of empty deltas is
# bounded too (250,000 chunks by default, twice a 128k-token reply sent one token per chunk).
CHUNK_COST = 8
EMPTY_STREAM_MESSAGE = "The provider's stream ended without a reply (no text, no tool call, no output tokens)."


MAX_COUNT = 10**9  # tokens in one turn: past any model's window, so no count (and 10**400 has no float)


def count(value: Any) -> int:
    """A provider's token count, untrusted: whole, not negative, not absurd (else 0, unknown)."""
    ok = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    number = int(value) if ok and not isinstance(value, bool) else 0
    return number if 0 <= number <= MAX_COUNT else 0


@dataclass(frozen=True, slots=True)
class Counts:
    """The token counts of a litellm-shaped usage, prompt split into fresh, cache read, cache write."""

    input: int
    output: int
    cache_read: int
    cache_write: int


def counts(raw: Any) -> Counts:
    prompt = count(getattr(raw, "prompt_tokens", 0))
    completion = count(getattr(raw, "completion_tokens", 0))
    details = getattr(raw, "prompt_tokens_details", None)
    cache_read = min(prompt, count(getattr(details, "cached_tokens", 0))) if details else 0
    cache_write = min(prompt - cache_read, count(getattr(raw, "cache_creation_input_tokens", 0)))
    return Counts(max(0, prompt - cache_read - cache_write), completion, cache_read, cache_write)


class Fold:
    """One turn being put together. `add` yields what a chunk shows; `end` checks how the stream
    ended; `result` is the assembled TurnResponse (or the empty-stream error)."""

    def __init__(self, usage_of: Callable[[Any], Usage], max_reply_chars: int) -> None:
        self.usage_of = usage_of
        self.max_reply_chars = max_reply_chars
        self.text: list[str] = []
        self.thinking: list[str] = []
        # A character's two UTF-16 halves may come in two chunks (core/surrogates.py): joined here,
        # where every route's deltas enter, so no reader downstream sees half of one.
        self.text_joiner = Joiner()
        self.thinking_joiner = Joiner()
        self.acc = ToolCallAccumulator()
        self.folder = ThinkingFolder()
        self.finish: str | None = None
        self.usage = Usage()
        self.seen_usage = False
        self.size = 0  # characters of this reply so far, CHUNK_COST per chunk on top
        self.cut = False  # the reply-size bound was reached: stop reading

    def add(self, chunk: Any) -> Iterator[StreamItem]:
        if getattr(chunk, "usage", None):
            self.seen_usage = True
            self.usage = self.usage_of(chunk.usage)
            yield UsageChunk(self.usage)  # kept even if the turn is aborted before it ends
        self.size += CHUNK_COST
        if self.size > self.max_reply_chars:
            self.finish = "length"  # an endless stream is cut like an output-limit cut
            self.cut = True
            return
        if not chunk.choices:
            return
        choice = chunk.choices[0]
        delta = choice.delta
        reasoning = getattr(delta, "reasoning_content", None)
        if reasoning and (reasoning := self.thinking_joiner.feed(reasoning)):
            self.size += len(reasoning)
            self.thinking.append(reasoning)
            yield ThinkingChunk(reasoning)
        content = delta.content
        if content and (content := self.text_joiner.feed(content)):
            self.size += len(content)
            self.text.append(content)
            yield TextChunk(content)
        if getattr(delta, "thinking_blocks", None):
            self.size += self.folder.add(delta.thinking_blocks)  # signatures, redacted blocks: held too
        if delta.tool_calls:
            self.size += self.acc.add(delta.tool_calls)
        if choice.finish_reason and self.finish is None:
            # The first reason is the provider's; litellm's parser makes up "stop" for [DONE].
            self.finish = choice.finish_reason

    def end(self) -> None:
        """A clean end of the body: before any finish reason, with something in it, a cut reply."""
        held = self.text_joiner.held or self.thinking_joiner.held
        if self.finish is None and (self.text or self.thinking or held or self.acc.calls or self.usage.output):
            raise StreamEndedEarly(EOF_MESSAGE)  # nothing at all is the empty-stream check's

    def close(self, model: str, *, local: bool) -> Iterator[StreamItem]:
        """The stream's end: a half character still held back (as U+FFFD), then the result."""
        if tail := self.thinking_joiner.flush():
            self.thinking.append(tail)
            yield ThinkingChunk(tail)
        if tail := self.text_joiner.flush():
            self.text.append(tail)
            yield TextChunk(tail)
        yield self.result(model, local=local)

    def result(self, model: str, *, local: bool) -> TurnResponse:
        if not self.seen_usage and not local:
            self.usage = Usage(priced=False)  # the server sent no usage: unknown, not free (litellm would guess)
        calls = self.acc.finish()
        if not (self.text or self.thinking or calls) and self.usage.output == 0:
            # litellm makes up a finish_reason "stop" for a body of only `[DONE]`; a reply with
            # nothing in it and no output tokens counted is a broken stream, not a silent model.
            raise ModelError(EMPTY_STREAM_MESSAGE, kind="server", retryable=True)
        finish = self.finish
        if finish is None or (calls and finish == "stop"):
            finish = "tool_calls" if calls else "stop"
        return TurnResponse(
            text="".join(self.text),
            thinking="".join(self.thinking),
            tool_calls=calls,
            finish_reason=finish,
            usage=self.usage,
            model=model,
            thinking_blocks=self.folder.finish(),
        )
