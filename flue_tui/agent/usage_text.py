"""How every front end words a token total, so the status line, /cost and the turn line agree."""

from __future__ import annotations

from flue_tui.core.usage import Usage


def prompt_tokens(usage: Usage) -> int:
    """Tokens the model read: fresh input plus cache reads and writes (each is prompt text)."""
    return usage.input + usage.cache_read + usage.cache_write


def counted(usage: Usage) -> bool:
    """Whether anything was counted yet: before the first answer there is nothing to price."""
    return bool(prompt_tokens(usage) or usage.output or usage.cost)


def cost(usage: Usage, digits: int = 4) -> str:
    """`$0.0123`; `cost unknown` when a model had no known price (never a made-up $0); "" while
    nothing was counted, as whether the model has a price is only learnt from its first answer."""
    if not usage.priced:
        return "cost unknown"
    return f"${usage.cost:.{digits}f}" if counted(usage) else ""


def brief(usage: Usage) -> str:
    """`1,234 in · 56 out · $0.0123`: the inline status and turn lines, and /status."""
    price = cost(usage)
    return f"{prompt_tokens(usage):,} in · {usage.output:,} out" + (f" · {price}" if price else "")


def detailed(usage: Usage, *, tasks: bool = False) -> str:
    """`/cost`: the same total with its cache share spelled out."""
    cache = ""
    if usage.cache_read or usage.cache_write:
        cache = f" ({usage.cache_read:,} cache read, {usage.cache_write:,} cache write)"
    note = " · task sub-agents included" if tasks else ""
    price = cost(usage)
    price = f" · cost {price}" if price.startswith("$") else (f" · {price}" if price else "")
    return f"Tokens: {prompt_tokens(usage):,} in{cache} · {usage.output:,} out{price}{note}"


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
