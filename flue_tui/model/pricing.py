"""What a turn cost, from the provider's full usage: cache reads, cache writes, reasoning tokens.

litellm's usage-aware pricing (`cost_per_token(usage_object=…)`) prices each kind of token at its
own rate, the same number `litellm.completion_cost` gives; pricing `prompt_tokens` as fresh input
over-reports cached prompts 2-5×. Handing it the usage we already have also keeps it from counting
tokens itself. A model litellm cannot price has an unknown cost (None), never $0, unless the
config gives per-million prices; models served on this machine (Ollama) cost nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LOCAL_PROVIDERS = ("ollama", "ollama_chat")


@dataclass(frozen=True, slots=True)
class Prices:
    """Config `input_price` / `output_price`, USD per million tokens. Cache reads and writes are
    priced as input: an upper bound, so a budget never trips late."""

    input: float
    output: float


def is_local(model: str) -> bool:
    return model.split("/", 1)[0] in LOCAL_PROVIDERS


def turn_cost(litellm: Any, model: str, usage: Any, prices: Prices | None = None) -> float | None:
    """USD for one response's litellm `Usage`; None when nothing prices this model."""
    prompt = getattr(usage, "prompt_tokens", 0) or 0
    completion = getattr(usage, "completion_tokens", 0) or 0
    if prices is not None:
        # litellm's prompt_tokens already include cached and cache-written tokens.
        return _sane((max(0, prompt) * prices.input + max(0, completion) * prices.output) / 1e6)
    if is_local(model):
        return 0.0
    try:
        p_cost, c_cost = litellm.cost_per_token(
            model=model, usage_object=usage, prompt_tokens=prompt, completion_tokens=completion
        )
    except Exception:
        return None  # not in litellm's map (a local or brand-new model): unknown, not free
    return _sane(float(p_cost) + float(c_cost))


def cache_cost(model: str, cache_read: int, cache_write: int) -> float | None:
    """USD of the cache reads and writes alone, at the model's cache rates (input rate where the
    map has none); None when the map does not know the model. For /cost's cache share. The map is
    read as data (modelmap.py); litellm is asked only for a model the file does not hold."""
    from flue_tui.model import modelmap

    if is_local(model):
        return 0.0
    info = modelmap.info(model)
    try:
        if info is None:
            from flue_tui.model.loader import get_litellm

            info = dict(get_litellm().get_model_info(model))
        base = float(info.get("input_cost_per_token") or 0.0)
        read = info.get("cache_read_input_token_cost")
        write = info.get("cache_creation_input_token_cost")
        cost = max(0, cache_read) * (base if read is None else float(read))
        cost += max(0, cache_write) * (base if write is None else float(write))
    except Exception:
        return None
    return _sane(cost)


def _sane(cost: float) -> float | None:
    """A stream's usage is untrusted: negative counts must not buy credit against the budget."""
    return max(0.0, cost) if math.isfinite(cost) else None


def is_priced(litellm: Any, model: str, prices: Prices | None = None) -> bool:
    """Whether a budget can be enforced for `model` (checked before a run starts)."""
    if prices is not None or is_local(model):
        return True
    try:
        litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=1)
    except Exception:
        return False
    return True


def budget_problem(model: str, prices: Prices | None) -> str | None:
    """Why --max-budget-usd cannot be honoured for `model` (one sentence), or None."""
    from flue_tui.model import modelmap

    if prices is not None or is_local(model) or modelmap.cost(model, 1, 1, 0, 0) is not None:
        return None  # priced from the map read as data: no litellm import for it
    from flue_tui.model.loader import get_litellm

    if is_priced(get_litellm(), model, prices):
        return None
    return (
        f"--max-budget-usd needs a price for {model}, which litellm's price list does not have: "
        "set input_price and output_price (USD per million tokens) in config.toml, or drop the flag."
    )
