"""How every front end words a token total, so the status line, /cost and the turn line agree."""

from __future__ import annotations

from flue_tui.core.messages import Usage


def prompt_tokens(usage: Usage) -> int:
    """Tokens the model read: fresh input plus cache reads and writes (each is prompt text)."""
    return usage.input + usage.cache_read + usage.cache_write


def cost(usage: Usage, digits: int = 4) -> str:
    """`$0.0123`, or `cost unknown` when a model had no known price (never a made-up $0)."""
    return f"${usage.cost:.{digits}f}" if usage.priced else "cost unknown"


def brief(usage: Usage) -> str:
    """`1,234 in · 56 out · $0.0123`: the inline status and turn lines."""
    return f"{prompt_tokens(usage):,} in · {usage.output:,} out · {cost(usage)}"


def detailed(usage: Usage, *, tasks: bool = False) -> str:
    """`/cost`: the same total with its cache share spelled out."""
    cache = ""
    if usage.cache_read or usage.cache_write:
        cache = f" ({usage.cache_read:,} cache read, {usage.cache_write:,} cache write)"
    note = " · task sub-agents included" if tasks else ""
    price = f"cost {cost(usage)}" if usage.priced else cost(usage)
    return f"Tokens: {prompt_tokens(usage):,} in{cache} · {usage.output:,} out · {price}{note}"


def from_dict(data: dict) -> Usage:
    """A `Usage.to_dict()` (as events carry it) back into a Usage."""
    return Usage(
        input=int(data.get("input", 0)),
        output=int(data.get("output", 0)),
        cache_read=int(data.get("cacheRead", 0)),
        cache_write=int(data.get("cacheWrite", 0)),
        cost=float(data.get("cost", 0.0) or 0.0),
        priced=bool(data.get("priced", True)),
    )
