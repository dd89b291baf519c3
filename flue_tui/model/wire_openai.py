"""OpenAI chat completions on the direct path: the request body, and each streamed event as the
fold's chunk (fold.py), read as litellm's OpenAI parser reads it (`reasoning` is
`reasoning_content`; an `error` payload in a 200 stream and `finish_reason: abort` are failures;
finish reasons mapped as litellm maps them). tests/model/test_direct_oracle.py holds both equal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flue_tui.model.chunks import Choice, Chunk, Delta

# litellm's map_finish_reason, for the reasons these two wires send; anything else is "stop".
FINISH = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "function_call",
    "content_filter": "content_filter",
    "content_filtered": "content_filter",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "compaction": "length",
    "pause_turn": "length",
    "model_context_window_exceeded": "length",
    "eos": "stop",
    "eos_token": "stop",
}


class Malformed(ValueError):
    """An event the wire format does not allow; shown as 'The provider sent a malformed stream event'."""


class ProviderFailure(Exception):
    """The provider reported a failure inside a 200 stream: mapped like an HTTP error of `status`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Details:
    """OpenAI's `prompt_tokens_details`: how many prompt tokens came from its cache."""

    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class WireUsage:
    """A usage in litellm's `Usage` shape (what fold.counts reads)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_tokens_details: Details | None = None
    cache_creation_input_tokens: int = 0


def finish_reason(value: Any) -> str | None:
    return FINISH.get(value, "stop") if isinstance(value, str) and value else None


def body(name: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], params: dict[str, Any]) -> bytes:
    # litellm leaves out what is None (an assistant turn of only tool calls has no `content`).
    wire = [{k: v for k, v in m.items() if v is not None} for m in messages]
    request: dict[str, Any] = {"model": name, "messages": wire, **params}
    if tools:
        request["tools"] = tools
    request["stream"] = True
    request["stream_options"] = {"include_usage": True}
    return json.dumps(request, ensure_ascii=False).encode()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage(raw: Any) -> WireUsage | None:
    if not isinstance(raw, dict) or not raw:
        return None
    details = raw.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    return WireUsage(
        _int(raw.get("prompt_tokens")),
        _int(raw.get("completion_tokens")),
        Details(cached) if isinstance(details, dict) else None,
        _int(raw.get("cache_creation_input_tokens")),
    )


def _error(error: Any) -> ProviderFailure:
    if not isinstance(error, dict):
        return ProviderFailure(500, str(error))
    message, code = error.get("message"), error.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    return ProviderFailure(status, message if isinstance(message, str) else json.dumps(error))


def chunk(data: str) -> Chunk | None:
    """One `data:` payload as the fold's chunk; None for `[DONE]`."""
    if data.strip() == "[DONE]":
        return None
    try:
        event = json.loads(data)
    except ValueError as exc:
        raise Malformed(str(exc)) from None
    if not isinstance(event, dict):
        raise Malformed("not an object")
    if event.get("error"):
        raise _error(event["error"])
    raw_choices = event.get("choices") or []
    if not isinstance(raw_choices, list):
        raise Malformed("choices is not a list")
    choices = []
    for raw in raw_choices[:1]:  # the fold reads the first choice only
        if not isinstance(raw, dict):
            raise Malformed("a choice is not an object")
        if raw.get("finish_reason") == "abort":
            raise ProviderFailure(500, "Upstream generation aborted (finish_reason=abort)")
        delta = raw.get("delta") or {}
        if not isinstance(delta, dict):
            raise Malformed("delta is not an object")
        reasoning = delta.get("reasoning") if "reasoning" in delta else delta.get("reasoning_content")
        calls = delta.get("tool_calls")
        content = delta.get("content")
        choices.append(
            Choice(
                Delta(
                    content if isinstance(content, str) else None,
                    calls if isinstance(calls, list) and all(isinstance(c, dict) for c in calls) else None,
                    reasoning if isinstance(reasoning, str) else None,
                ),
                finish_reason(raw.get("finish_reason")),
            )
        )
    return Chunk(choices, usage(event.get("usage")))
