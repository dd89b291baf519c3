"""/cost's words in every front end: the totals, the context's fill, the cache's share and the task
sub-agents' own total (ui/commands.py shows them)."""

from __future__ import annotations

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.core.messages import Usage


def cost_text(
    total: Usage,
    tasks: int,
    context_tokens: int,
    window: int | None,
    *,
    children: Usage | None = None,
    unpriced: tuple[str, ...] = (),
    cache_usd: float | None = None,
) -> str:
    """/cost in every front end: the totals (task children included) and how full the context is;
    then the cache's share, the task sub-agents' own total, and why a cost is unknown."""
    from flue_tui.agent import usage_text

    text = usage_text.detailed(total, tasks=tasks > 0)
    if window and context_tokens:
        text += f" · context {context_tokens:,} of {window:,} tokens ({100 * context_tokens / window:.0f}%)"
    lines = [text]
    if cache_usd is not None and total.priced and (total.cache_read or total.cache_write):
        share = f" ({100 * cache_usd / total.cost:.0f}% of the cost)" if total.cost > 0 else ""
        lines.append(
            f"  cache: {total.cache_read:,} tokens read, {total.cache_write:,} written · ${cache_usd:.4f}{share}"
        )
    if children is not None and (children.input or children.output or children.cache_read or children.cache_write):
        lines.append(f"  task sub-agents: {usage_text.brief(children)}")
    if not total.priced:
        lines.append(f"  cost unknown for {' and '.join(unpriced) or 'a model of this session'}: no price is known.")
        lines.append("  Set input_price and output_price (USD per 1M tokens) in config.toml.")
    return "\n".join(lines)


def cache_cost(settings: Settings, usage: Usage) -> float | None:
    """Blocking (reads the price map; litellm only for a model it lacks): USD of the cache reads and writes alone at the main model's
    rates, or None when unknown. With config prices, cache tokens are priced as input."""
    from flue_tui.model.pricing import cache_cost as priced_cache
    from flue_tui.runtime.wiring import prices

    if not (usage.cache_read or usage.cache_write) or not settings.model or not usage.priced:
        return None
    try:
        configured = prices(settings)
    except ConfigError:
        return None
    if configured is not None:
        return (usage.cache_read + usage.cache_write) * configured.input / 1e6
    return priced_cache(settings.model, usage.cache_read, usage.cache_write)
