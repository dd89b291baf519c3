"""Prompt-cache breakpoints for Anthropic-served models (Anthropic, Bedrock, Vertex, OpenRouter).

Anthropic caches a request's prefix only up to blocks marked `cache_control`, at most 4 of them.
Its cache order is tools → system → messages, so one mark on the system prompt caches the stable
prefix (tools + system), and a rolling mark on the latest message lets the next request of the
same loop read everything before it. A third mark sits where the previous request's rolling mark
was (the message before the latest assistant turn), so a read is found even when a turn added more
blocks than the API's ~20-block look-back: a resumed session reads all of its history, and after a
compaction the tools + system prefix is still read. Other providers (OpenAI, Gemini, DeepSeek)
cache by themselves and get the messages unchanged.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL = {"type": "ephemeral"}
_MARKABLE = ("system", "user", "tool")


def anthropic_served(model: str) -> bool:
    """Whether litellm sends this model's requests to Claude, which needs explicit breakpoints."""
    name = model.lower()
    provider, _, rest = name.partition("/")
    if not rest:
        return "claude" in name  # litellm infers anthropic/ for a bare claude-* id
    if provider == "anthropic":
        return True
    if provider == "bedrock":
        return "anthropic" in rest or "claude" in rest
    if provider in ("vertex_ai", "vertex_ai_beta"):
        return "claude" in rest
    if provider == "openrouter":
        return rest.startswith("anthropic/")
    return False


def _marked(message: dict[str, Any]) -> dict[str, Any] | None:
    """A copy of `message` carrying the breakpoint on its last block, or None if it cannot carry one
    (empty text must not be marked; assistant turns may start with thinking blocks)."""
    role, content = message.get("role"), message.get("content")
    if role not in _MARKABLE:
        return None
    if role == "tool":
        # litellm puts a tool message's cache_control on its tool_result block.
        return {**message, "cache_control": EPHEMERAL}
    if isinstance(content, str):
        return (
            {**message, "content": [{"type": "text", "text": content, "cache_control": EPHEMERAL}]} if content else None
        )
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        last = content[-1]
        if last.get("type") == "text" and not last.get("text"):
            return None
        return {**message, "content": [*content[:-1], {**last, "cache_control": EPHEMERAL}]}
    return None


def with_breakpoints(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Copies of `messages` and `tools` with at most three cache breakpoints; inputs are untouched.

    A request without tools is a one-shot (the compaction summariser): it never continues, so
    only its system prompt is marked; writing the rest to the cache would cost 25% more for nothing.
    """
    out = list(messages)
    out_tools = list(tools)
    spots: list[int] = []
    if out and out[0].get("role") == "system":
        spots.append(0)
    elif out_tools:
        out_tools[-1] = {**out_tools[-1], "cache_control": EPHEMERAL}
    if tools and len(out) > 1:
        spots.append(len(out) - 1)
        last_assistant = next((i for i in range(len(out) - 1, 0, -1) if out[i].get("role") == "assistant"), None)
        if last_assistant is not None and last_assistant - 1 not in spots:
            spots.append(last_assistant - 1)
    for i in spots:
        marked = _marked(out[i])
        if marked is not None:
            out[i] = marked
    return out, out_tools
