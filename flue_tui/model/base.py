"""The ModelClient protocol: stream one assistant turn; no provider library leaks past here."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from flue_tui.core.messages import ToolCall, Usage

ErrorKind = Literal["auth", "model_unknown", "connection", "rate_limit", "server", "overflow", "bad_request", "other"]

# Flue's transient-error test (flue-behaviour.md §10.4), applied to the provider's message.
TRANSIENT_RE = (
    r"(?i)"
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error"
    r"|network.?error|connection.?(?:reset|refused|lost)|socket hang up|fetch failed|timed? out|timeout"
    r"|terminated|provider finish_reason:\s*error(?![-\w])"
)


@dataclass(frozen=True, slots=True)
class TextChunk:
    """A piece of reply text from the model's stream."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingChunk:
    """A piece of thinking from the model's stream."""

    text: str


@dataclass(frozen=True, slots=True)
class UsageChunk:
    """Usage as the provider reported it so far (Anthropic sends input tokens first)."""

    usage: Usage


@dataclass(slots=True)
class TurnResponse:
    """The assembled turn, yielded last by `stream_turn`."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    # Anthropic-style thinking blocks, signatures included, to be sent back exactly as received.
    thinking_blocks: list[dict[str, str]] = field(default_factory=list)


StreamItem = TextChunk | ThinkingChunk | UsageChunk | TurnResponse


# litellm appends the whole request to some errors ("Received Messages=[...]": system prompt,
# files read, everything) and the offending tool arguments to others; neither belongs in a message.
_REQUEST_DUMP = r"(?s)\s*(?:Received Messages=|\. Arguments: ).*\Z"


def without_request(message: str) -> str:
    """The error text without the request litellm pasted into it."""
    cut = re.sub(_REQUEST_DUMP, "", message)
    return cut if cut.strip() else message[:200]


class ModelError(Exception):
    """A failed model request. `message` is the provider's text; `hint` tells a user the fix."""

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind = "other",
        status: int | None = None,
        retryable: bool | None = None,
        hint: str | None = None,
    ) -> None:
        message = without_request(message)
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status = status
        self.retryable = bool(re.search(TRANSIENT_RE, message)) if retryable is None else retryable
        self.hint = hint


class ModelClient(Protocol):
    @property
    def model(self) -> str: ...  # the id requests go to (read-only: a wrapper may decide it per turn)

    def stream_turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, max_tokens: int | None = None
    ) -> AsyncIterator[StreamItem]:
        """Yield text/thinking chunks as they arrive, then one TurnResponse; raise ModelError."""
        ...

    def context_window(self) -> int | None:
        """Max input tokens when the model is known; None for an unmapped (e.g. local) model."""
        ...

    def max_output_tokens(self) -> int | None:
        """Max output tokens when the model is known."""
        ...

    def image_refusal(self) -> str | None:
        """The one sentence for a model that takes no images (said before any request); None when
        it takes them."""
        ...
