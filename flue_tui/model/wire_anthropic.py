"""Anthropic Messages on the direct path: flue's OpenAI-shaped messages as a Messages request, and
each streamed event as the fold's chunk (fold.py), as litellm translates and parses them.

The request: the system prompt as text blocks; tool results as `tool_result` blocks of a user turn
(consecutive turns of one role merged); assistant turns as thinking blocks (sent back exactly as
received), text, then `tool_use`; an empty assistant turn gets litellm's placeholder text;
`cache_control` marks (caching.py) where they were; effort as `thinking.budget_tokens`.
tests/model/test_direct_oracle.py holds every request and fold equal to litellm's.
"""

from __future__ import annotations

import json
from typing import Any

from flue_tui.model.chunks import Choice, Chunk, Delta
from flue_tui.model.turn_params import DEFAULT_OUTPUT_CAP, thinking_budget
from flue_tui.model.wire_openai import Details, Malformed, ProviderFailure, WireUsage, finish_reason

# Anthropic requires max_tokens. For a Claude the map does not know (a brand-new one) litellm infers
# the family's limit and flue caps it at its DEFAULT_OUTPUT_CAP: this is that, within every Claude's
# output limit (litellm's own fallback for a name it cannot place, 128,000, is past most of them).
DEFAULT_MAX_TOKENS = DEFAULT_OUTPUT_CAP
EMPTY_ASSISTANT = "[System: Empty message content sanitised to satisfy protocol]"  # litellm's placeholder


def _text_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return [
            _image(block) if block.get("type") == "image_url" else dict(block)
            for block in content
            if isinstance(block, dict)
        ]
    return []


def _image(block: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI `image_url` part (a data URL: core/images.py makes only those) as Anthropic's
    base64 `image` block, as litellm translates it."""
    url = str((block.get("image_url") or {}).get("url") or "")
    head, _, data = url.partition(",")
    media_type = head.removeprefix("data:").removesuffix(";base64")
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def _arguments(raw: Any) -> Any:
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        value = {}
    return value if isinstance(value, dict) else {}


def _assistant(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = [dict(b) for b in message.get("thinking_blocks") or [] if isinstance(b, dict)]
    blocks += _text_blocks(message.get("content"))
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        blocks.append(
            {"type": "tool_use", "id": call.get("id"), "name": fn.get("name"), "input": _arguments(fn.get("arguments"))}
        )
    return blocks or [{"type": "text", "text": EMPTY_ASSISTANT}]


def _tool_result(message: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": message.get("tool_call_id"),
        "content": message.get("content"),
    }
    if message.get("cache_control"):
        block["cache_control"] = message["cache_control"]
    return block


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    fn = tool.get("function") or {}
    out: dict[str, Any] = {
        "name": fn.get("name"),
        "input_schema": fn.get("parameters") or {"type": "object"},
        "type": "custom",
    }
    if fn.get("description"):
        out["description"] = fn["description"]
    if tool.get("cache_control"):
        out["cache_control"] = tool["cache_control"]
    return out


def body(name: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], params: dict[str, Any]) -> bytes:
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "system":
            system += _text_blocks(message.get("content"))
            continue
        if role == "assistant":
            wire_role, blocks = "assistant", _assistant(message)
        elif role == "tool":
            wire_role, blocks = "user", [_tool_result(message)]
        else:
            wire_role, blocks = "user", _text_blocks(message.get("content"))
        if turns and turns[-1]["role"] == wire_role:
            turns[-1]["content"] += blocks
        else:
            turns.append({"role": wire_role, "content": blocks})
    request: dict[str, Any] = {"model": name, "messages": turns}
    effort = params.get("reasoning_effort")
    request["max_tokens"] = params["max_tokens"] if params.get("max_tokens") is not None else DEFAULT_MAX_TOKENS
    if tools:
        request["tools"] = [_tool(t) for t in tools]
    if effort and thinking_budget(effort):
        request["thinking"] = {"type": "enabled", "budget_tokens": thinking_budget(effort)}
    if system:
        request["system"] = system
    request["stream"] = True
    return json.dumps(request, ensure_ascii=False).encode()


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class Parser:
    """One turn's events; keeps what Anthropic reports once (input usage, block kinds)."""

    def __init__(self) -> None:
        self.input = self.cache_read = self.cache_write = self.output = 0
        self.kinds: dict[int, str] = {}
        self.tools: dict[int, int] = {}  # content block index -> tool call index

    def _usage(self, raw: Any) -> WireUsage | None:
        if not isinstance(raw, dict):
            return None
        if "input_tokens" in raw:
            self.input = _int(raw.get("input_tokens"))
        if "cache_read_input_tokens" in raw:
            self.cache_read = _int(raw.get("cache_read_input_tokens"))
        if "cache_creation_input_tokens" in raw:
            self.cache_write = _int(raw.get("cache_creation_input_tokens"))
        if "output_tokens" in raw:
            self.output = _int(raw.get("output_tokens"))
        prompt = self.input + self.cache_read + self.cache_write
        return WireUsage(prompt, self.output, Details(self.cache_read), self.cache_write)

    def chunk(self, name: str, data: str) -> Chunk | None:
        try:
            event = json.loads(data)
        except ValueError as exc:
            raise Malformed(str(exc)) from None
        if not isinstance(event, dict):
            raise Malformed("not an object")
        kind = event.get("type") or name
        if kind == "error":
            error = event.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            raise ProviderFailure(500, json.dumps(event) if not isinstance(message, str) else data)
        if kind == "message_start":
            message = event.get("message")
            usage = self._usage(message.get("usage") if isinstance(message, dict) else None)
            return Chunk([], usage) if usage is not None else None
        if kind == "message_delta":
            delta = event.get("delta")
            stop = delta.get("stop_reason") if isinstance(delta, dict) else None
            return Chunk([Choice(Delta(None, None), finish_reason(stop))], self._usage(event.get("usage")))
        index = event.get("index")
        if kind == "content_block_start":
            block = event.get("content_block")
            if not isinstance(block, dict) or not isinstance(index, int):
                raise Malformed("content_block_start without a block")
            self.kinds[index] = str(block.get("type"))
            if block.get("type") == "tool_use":
                self.tools[index] = len(self.tools)
                call = {
                    "index": self.tools[index],
                    "id": block.get("id"),
                    "type": "function",
                    "function": {"name": block.get("name"), "arguments": ""},
                }
                return _delta(tool_calls=[call])
            if block.get("type") == "redacted_thinking":
                return _delta(thinking_blocks=[{"type": "redacted_thinking", "data": block.get("data")}])
            text = block.get("text")
            return _delta(content=text) if block.get("type") == "text" and isinstance(text, str) and text else None
        if kind == "content_block_delta":
            delta = event.get("delta")
            if not isinstance(delta, dict):
                raise Malformed("content_block_delta without a delta")
            dtype = delta.get("type")
            if dtype == "text_delta":
                return _delta(content=_str(delta.get("text")))
            if dtype == "input_json_delta" and isinstance(index, int) and index in self.tools:
                call = {"index": self.tools[index], "function": {"arguments": _str(delta.get("partial_json"))}}
                return _delta(tool_calls=[call])
            if dtype == "thinking_delta":
                text = _str(delta.get("thinking"))
                return _delta(
                    reasoning=text, thinking_blocks=[{"type": "thinking", "thinking": text, "signature": None}]
                )
            if dtype == "signature_delta":
                signature = _str(delta.get("signature"))
                return _delta(thinking_blocks=[{"type": "thinking", "thinking": "", "signature": signature}])
            return None
        return None  # ping, content_block_stop, message_stop, events added later


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _delta(
    content: str | None = None,
    tool_calls: list[Any] | None = None,
    reasoning: str | None = None,
    thinking_blocks: list[Any] | None = None,
) -> Chunk:
    return Chunk([Choice(Delta(content, tool_calls, reasoning, thinking_blocks), None)], None)
