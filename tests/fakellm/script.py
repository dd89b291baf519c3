"""Script format for the fake LLM server: what each scripted response looks like.

A script is an ordered list of `Turn`s. Each incoming chat-completion request
consumes the first unconsumed turn whose `match` accepts it. The same field
names are used by the JSON script files of the standalone server
(`python -m tests.fakellm --script script.json`), see `turn_from_dict`.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

# Realistic-looking filler for `text_tokens` benchmarks; words of varied length
# so the renderer sees a mix of short and long deltas and natural line wrapping.
_LOREM = (
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
    "incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud "
    "exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure "
    "in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint "
    "occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est "
    "laborum function return value module import class struct buffer stream token"
).split()

# Exact provider wording: litellm only maps a 400 to ContextWindowExceededError
# when the message contains phrases like "This model's maximum context length is".
CONTEXT_OVERFLOW_MESSAGE = (
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
)


@dataclass
class Call:
    """One tool call the fake model makes.

    `arguments` as a dict is sent as `json.dumps(arguments)`; a str is sent
    verbatim, so tests can send invalid JSON. `id=None` gets an automatic
    server-wide unique id "call_<n>".
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass
class Turn:
    """One scripted model response (or error). All fields are optional."""

    text: str = ""
    reasoning: str = ""
    # The text (reasoning) as exactly these deltas, instead of `text` cut into TEXT_PIECE-sized
    # pieces; `text` (`reasoning`) is then their join. A delta may end or begin with half of a
    # surrogate pair ("\ud83d", "\ude00"): json.dumps sends it as its `\udXXX` escape, as a
    # provider's JSON may split one character over two events.
    text_deltas: list[str] | None = None
    reasoning_deltas: list[str] | None = None
    # Anthropic stand-in: a redacted_thinking block (its opaque data) before the reply.
    redacted_thinking: str = ""
    calls: list[Call] = field(default_factory=list)
    # Send tool-call deltas without "index"; only the first delta of each call
    # carries its id, so a client has to key calls by id / arrival order.
    omit_index: bool = False
    # Send no tool-call ids at all (with omit_index: calls told apart only by their names), and
    # split each name over this many deltas, as some vLLM/llama.cpp-style servers do.
    omit_ids: bool = False
    name_pieces: int = 1
    # None -> "tool_calls" when there are calls, else "stop".
    finish_reason: str | None = None
    # (prompt_tokens, completion_tokens[, cached_tokens[, cache_write_tokens]]). None -> (10, 5),
    # or (10, text_tokens) when `text_tokens` is set so benchmarks report sane numbers. The
    # Anthropic stand-in reads it as (input_tokens, output_tokens[, cache_read[, cache_creation]])
    # and otherwise counts the request itself; the Ollama one as (prompt_eval, eval).
    usage: tuple[int, ...] | None = None
    # HTTP error instead of a completion. error_type / error_code default from
    # the status and message (see server._error_body).
    status: int | None = None
    error_message: str = ""
    error_type: str | None = None
    error_code: str | None = None
    # Send this many SSE chunks, then reset the TCP connection.
    disconnect_after: int | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    # Provider faults. `empty_stream`: the body is only `data: [DONE]`. `stall`: after
    # `stall_after` chunks (0 = right after the headers) send nothing for this many seconds, then
    # carry on (a client that gave up has gone by then). `endless`: after `text`, keep streaming
    # filler words for this many seconds before finishing (bounded, so the stand-in always stops).
    empty_stream: bool = False
    stall: float = 0.0
    stall_after: int = 0
    # Tests (OpenAI and Anthropic stand-ins): after `stall_after` chunks send nothing until the test
    # sets this event (a generous safety limit then carries on), so "part of the reply is shown while
    # the rest is still coming" holds however slowly the client renders, with no clock in the test.
    hold: threading.Event | None = None
    endless: float = 0.0
    # str: substring of the first user message's content; callable: gets the
    # request body. None accepts every request.
    match: str | Callable[[dict[str, Any]], bool] | None = None
    # Turns with the same barrier name hold their responses until requests for
    # all of them have arrived (120 s safety timeout).
    barrier: str | None = None
    repeat: int = 1
    # Benchmarks: stream `text_tokens` generated words (after `text`), paced at
    # `tokens_per_second` chunks per second when set (overrides chunk_delay).
    text_tokens: int = 0
    tokens_per_second: float | None = None

    def __post_init__(self) -> None:
        for name in ("text", "reasoning"):
            given = getattr(self, f"{name}_deltas")
            if given is not None:
                if getattr(self, name) not in ("", "".join(given)):
                    raise ValueError(f"Turn.{name} and Turn.{name}_deltas disagree")
                setattr(self, name, "".join(given))
        if self.repeat < 1:
            raise ValueError(f"Turn.repeat must be >= 1, got {self.repeat}")
        # Accept Call-like dicts too, so `Turn(calls=[{"name": ..}])` works.
        self.calls = [c if isinstance(c, Call) else Call(**c) for c in self.calls]
        if self.usage is not None:
            self.usage = tuple(self.usage)
            if len(self.usage) not in (2, 3, 4):
                raise ValueError("Turn.usage must be (prompt, completion[, cached[, cache_write]])")

    @classmethod
    def rate_limit(cls, **kw: Any) -> Turn:
        """A 429 that litellm maps to RateLimitError."""
        return cls(status=429, **kw)

    @classmethod
    def context_overflow(cls, **kw: Any) -> Turn:
        """A 400 worded like OpenAI's, which litellm maps to ContextWindowExceededError
        (litellm matches the message text, not the error code)."""
        kw.setdefault("error_message", CONTEXT_OVERFLOW_MESSAGE)
        return cls(status=400, **kw)

    def effective_usage(self) -> tuple[int, ...]:
        if self.usage is not None:
            return self.usage
        return (10, self.text_tokens or 5)

    def effective_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.calls else "stop"

    def text_pieces(self, size: int) -> list[str]:
        return list(self.text_deltas) if self.text_deltas is not None else _cut(self.text, size)

    def reasoning_pieces(self, size: int) -> list[str]:
        return list(self.reasoning_deltas) if self.reasoning_deltas is not None else _cut(self.reasoning, size)

    def full_text(self) -> str:
        """`text` plus the generated benchmark words (used by non-streaming replies)."""
        return self.text + "".join(generated_words(self.text_tokens, after=self.text))

    def matches(self, body: dict[str, Any]) -> bool:
        if self.match is None:
            return True
        if callable(self.match):
            return bool(self.match(body))
        return self.match in first_user_message(body)


def _cut(s: str, size: int) -> list[str]:
    return [s[i : i + size] for i in range(0, len(s), size)]


def as_held(text: str) -> str:
    """What a provider holds for text it streams as halves: each high+low pair one character."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def first_user_message(body: dict[str, Any]) -> str:
    """Text of the first user message; list content (text parts) is joined."""
    for msg in body.get("messages") or []:
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return ""
    return ""


def generated_words(n: int, after: str = "") -> list[str]:
    """n deterministic words, each a separate delta (" word"), with a paragraph
    break every 60 words so streamed markdown has paragraphs. `after` is the
    text already streamed, so the first word gets a space only when needed."""
    rng = random.Random(1234)  # deterministic: benchmark runs are comparable
    out: list[str] = []
    for i in range(n):
        word = rng.choice(_LOREM)
        if i == 0:
            sep = " " if after and not after[-1].isspace() else ""
        else:
            sep = "\n\n" if i % 60 == 59 else " "
        out.append(sep + word)
    return out


_TURN_FIELDS = {f.name for f in fields(Turn)} - {"hold"}  # an in-process event: no JSON spelling


def turn_from_dict(data: dict[str, Any]) -> Turn:
    """Build a Turn from a JSON object with the same field names as `Turn`.

    `calls` is a list of {"name", "arguments", "id"?}; `usage` a 2- or 3-list;
    `match` may only be a string. Unknown keys are rejected, since a typo would
    otherwise silently change the script's behaviour.
    """
    if not isinstance(data, dict):
        raise ValueError(f"script turn must be an object, got {type(data).__name__}")
    unknown = set(data) - _TURN_FIELDS
    if unknown:
        raise ValueError(f"unknown turn field(s): {', '.join(sorted(unknown))}")
    kwargs = dict(data)
    if "match" in kwargs and kwargs["match"] is not None and not isinstance(kwargs["match"], str):
        raise ValueError("script 'match' must be a string")
    if "calls" in kwargs:
        kwargs["calls"] = [Call(**c) for c in kwargs["calls"] or []]
    if kwargs.get("usage") is not None:
        kwargs["usage"] = tuple(kwargs["usage"])
    return Turn(**kwargs)


def load_script(path: str | Path) -> list[Turn]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError("script must be a JSON list of turn objects")
    return [turn_from_dict(t) for t in data]
