"""What Anthropic's Messages API refuses, worded as it words it, and how its prompt cache counts.

Kept apart from the HTTP side (anthropic.py) so each rule reads as one small function. Every
check returns the 400 message the real API would send, or None when the request passes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from typing import Any

from .images import anthropic_problem

MAX_CACHE_BREAKPOINTS = 4
# The API looks for earlier cache entries at up to ~20 block boundaries before each breakpoint.
CACHE_LOOKBACK_BLOCKS = 20
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_SECRET = b"fakeanthropic-signature-key"


def sign(thinking: str) -> str:
    """A thinking block's signature: the API checks it, clients must hand it back untouched."""
    return "sig_" + hmac.new(_SECRET, thinking.encode(), hashlib.sha256).hexdigest()


def tokens(obj: Any) -> int:
    """A stand-in tokenizer: one token per four characters of the block's JSON."""
    return max(1, len(json.dumps(obj, sort_keys=True, ensure_ascii=False)) // 4)


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def validate(body: dict[str, Any]) -> str | None:
    """The first problem the real API reports for this body, in its words."""
    for check in (_required, _tools, _roles, _content, _pairing, _thinking, _cache_count):
        problem = check(body)
        if problem:
            return problem
    return None


def _required(body: dict[str, Any]) -> str | None:
    if "model" not in body:
        return "model: Field required"
    if "max_tokens" not in body:
        return "max_tokens: Field required"
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    if not isinstance(body.get("messages"), list):
        return "messages: Field required"
    if not body["messages"]:
        return "messages: at least one message is required"
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if body["max_tokens"] <= budget:
            return (
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                f"documentation at {THINKING_DOCS}#max-tokens-and-context-window-size"
            )
        if body.get("temperature") not in (None, 1):
            return "`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode."
    return None


def _tools(body: dict[str, Any]) -> str | None:
    for n, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict) or not _TOOL_NAME.match(str(tool.get("name", ""))):
            return f"tools.{n}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{n}.custom.input_schema.type: Input should be 'object'"
    return None


def _roles(body: dict[str, Any]) -> str | None:
    messages = body["messages"]
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    for n, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{n}.role: Input should be 'user' or 'assistant'"
        if n and messages[n - 1].get("role") == role:
            return (
                f'messages: roles must alternate between "user" and "assistant", but found multiple '
                f'"{role}" roles in a row'
            )
    return None


def _content(body: dict[str, Any]) -> str | None:
    for n, message in enumerate(body["messages"]):
        content = message.get("content")
        if content == "" or content == []:
            return f"messages.{n}: all messages must have non-empty content except for the optional final assistant message"
        for k, block in enumerate(_blocks(content)):
            kind = block.get("type") if isinstance(block, dict) else None
            where = f"messages.{n}.content.{k}"
            refused = anthropic_problem(where, message["role"], block) if isinstance(block, dict) else None
            if refused:
                return refused
            if kind == "text" and not block.get("text"):
                if block.get("cache_control"):
                    return f"{where}.text: cache_control cannot be set for empty text blocks"
                return "messages: text content blocks must be non-empty"
            if kind == "tool_use":
                if message["role"] != "assistant":
                    return f"{where}: `tool_use` blocks can only be in `assistant` messages"
                if not isinstance(block.get("input"), dict):
                    return f"{where}.tool_use.input: Input should be a valid dictionary"
            if kind == "tool_result" and message["role"] != "user":
                return f"{where}: `tool_result` blocks can only be in `user` messages"
            if kind in ("thinking", "redacted_thinking") and block.get("cache_control"):
                return f"{where}.{kind}.cache_control: Extra inputs are not permitted"
    return None


def _pairing(body: dict[str, Any]) -> str | None:
    messages = body["messages"]
    for n, message in enumerate(messages):
        blocks = _blocks(message.get("content"))
        if message["role"] == "assistant":
            uses = [b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
            if not uses:
                continue
            after = _blocks(messages[n + 1].get("content")) if n + 1 < len(messages) else []
            answered = {b.get("tool_use_id") for b in after if isinstance(b, dict) and b.get("type") == "tool_result"}
            missing = [u for u in uses if u not in answered]
            if missing:
                return (
                    f"messages.{n + 1 if n + 1 < len(messages) else n}: `tool_use` ids were found without "
                    f"`tool_result` blocks immediately after: {', '.join(missing)}. Each `tool_use` block "
                    "must have a corresponding `tool_result` block in the next message."
                )
        else:
            before = _blocks(messages[n - 1].get("content")) if n else []
            used = {b.get("id") for b in before if isinstance(b, dict) and b.get("type") == "tool_use"}
            for k, block in enumerate(blocks):
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_result"
                    and block.get("tool_use_id") not in used
                ):
                    return (
                        f"messages.{n}.content.{k}: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message."
                    )
    return None


def _thinking(body: dict[str, Any]) -> str | None:
    messages = body["messages"]
    for n, message in enumerate(messages):
        for k, block in enumerate(_blocks(message.get("content"))):
            if isinstance(block, dict) and block.get("type") == "thinking":
                if not block.get("signature"):
                    return f"messages.{n}.content.{k}.thinking.signature: Field required"
                if block["signature"] != sign(block.get("thinking", "")):
                    return f"messages.{n}.content.{k}: Invalid `signature` in `thinking` block"
    thinking = body.get("thinking")
    if not (isinstance(thinking, dict) and thinking.get("type") == "enabled"):
        return None
    # The assistant turn that opened the current tool loop must start with its thinking block.
    last = messages[-1]
    if last["role"] != "user" or not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in _blocks(last.get("content"))
    ):
        return None
    n = len(messages) - 2
    first = _blocks(messages[n].get("content"))[:1]
    kind = first[0].get("type") if first and isinstance(first[0], dict) else "nothing"
    if kind not in ("thinking", "redacted_thinking"):
        return (
            f"messages.{n}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{kind}`. "
            "When `thinking` is enabled, a final `assistant` message must start with a thinking block "
            "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
            "thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please "
            f"consult our documentation at {THINKING_DOCS}"
        )
    return None


def _cache_count(body: dict[str, Any]) -> str | None:
    found = sum(1 for block in _sequence(body) if isinstance(block, dict) and block.get("cache_control"))
    if found > MAX_CACHE_BREAKPOINTS:
        return f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {found}."
    return None


def _sequence(body: dict[str, Any]) -> list[Any]:
    """Every cacheable block in the order the cache sees them: tools, system, then messages."""
    out: list[Any] = list(body.get("tools") or [])
    out += _blocks(body.get("system")) if body.get("system") else []
    for message in body.get("messages") or []:
        out += [
            {"role": message.get("role"), **_lifted(b)} if isinstance(b, dict) else b
            for b in _blocks(message.get("content"))
        ]
    return out


def _lifted(block: dict[str, Any]) -> dict[str, Any]:
    """A tool_result as the cache sees it: string content is one text part, and a mark on its own
    content parts counts as a mark on the block (the API accepts both places)."""
    if block.get("type") != "tool_result":
        return block
    parts = _blocks(block.get("content"))
    marks = [p["cache_control"] for p in parts if isinstance(p, dict) and p.get("cache_control")]
    bare = [{k: v for k, v in p.items() if k != "cache_control"} if isinstance(p, dict) else p for p in parts]
    mark = block.get("cache_control") or (marks[-1] if marks else None)
    return {**block, "content": bare, **({"cache_control": mark} if mark else {})}


@dataclass
class PromptCache:
    """Prefixes written at earlier breakpoints, per model. A request reads the longest cached prefix
    found at a breakpoint or within the look-back window before one, and writes up to its last."""

    min_tokens: int = 1024
    _entries: set[tuple[str, str]] = field(default_factory=set)

    def account(self, body: dict[str, Any]) -> tuple[int, int, int]:
        """(input_tokens, cache_creation_input_tokens, cache_read_input_tokens) for this request."""
        blocks = _sequence(body)
        model = str(body.get("model"))
        digests: list[str] = []
        sizes: list[int] = []
        running = hashlib.sha256()
        total = 0
        for block in blocks:
            bare = {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
            running.update(json.dumps(bare, sort_keys=True).encode())
            digests.append(running.copy().hexdigest())
            total += tokens(bare)
            sizes.append(total)
        marks = [i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("cache_control")]
        read_at = -1
        for mark in marks:
            for i in range(mark, max(-1, mark - CACHE_LOOKBACK_BLOCKS), -1):
                if (model, digests[i]) in self._entries:
                    read_at = max(read_at, i)
                    break
        read = sizes[read_at] if read_at >= 0 else 0
        written_to = read_at
        for mark in marks:
            if sizes[mark] >= self.min_tokens:
                self._entries.add((model, digests[mark]))
                written_to = max(written_to, mark)
        write = sizes[written_to] - read if written_to > read_at else 0
        return total - read - write, write, read
