"""The output limit and reasoning setting of an agent turn (summaries set their own limit).

`max_tokens` is always sent when it is known: without it litellm picks 64000 for Anthropic, or
6144 once thinking is on, which cuts replies (and tool calls) short. Effort goes through litellm's
`reasoning_effort`, which it maps to each provider's control (Anthropic `thinking.budget_tokens`,
OpenAI `reasoning_effort`, Gemini `thinkingConfig`, ...) and drops for models without one.
"""

from __future__ import annotations

from typing import Any

EFFORTS = ("off", "low", "medium", "high")
# A sane ceiling for one reply: bigger limits only make a runaway reply cost more.
DEFAULT_OUTPUT_CAP = 32_000
# Room left for the answer itself when a small limit meets a thinking budget.
ANSWER_ROOM = 1024


def check_effort(value: str) -> str:
    """The effort, lower-cased; ValueError with one sentence when it is not one of EFFORTS."""
    effort = value.strip().lower()
    if effort not in EFFORTS:
        raise ValueError(f"Unknown effort {value!r}: use one of {', '.join(EFFORTS)}.")
    return effort


# litellm's DEFAULT_REASONING_EFFORT_*_THINKING_BUDGET (its constants.py), the budgets it gives
# Anthropic per effort; copied so the direct path needs no litellm (tests/model/test_direct_oracle.py
# holds them equal to the installed litellm's).
THINKING_BUDGETS = {"low": 1024, "medium": 2048, "high": 4096}


def thinking_budget(effort: str) -> int:
    """The thinking budget litellm gives Anthropic for this effort."""
    return THINKING_BUDGETS.get(effort, 0)


def can_reason(litellm: Any, model: str) -> bool:
    """Whether to send an effort: yes for a model litellm knows to reason, and for one it does not
    know at all (a local server decides for itself); no for a known model without reasoning, which
    litellm would only drop with a warning printed over the app."""
    try:
        litellm.get_model_info(model)
    except Exception:
        return True
    try:
        return bool(litellm.supports_reasoning(model=model))
    except Exception:
        return False


def without_thinking_blocks(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with assistant `thinking_blocks` left out (copies only where one is)."""
    return [{k: v for k, v in m.items() if k != "thinking_blocks"} if "thinking_blocks" in m else m for m in messages]


def output_limit(override: int | None, model_limit: int | None) -> int | None:
    """The user's limit (never above what the model can write: a repository's config asking for
    more would get every request refused), else the model's, capped at DEFAULT_OUTPUT_CAP."""
    if override:
        return min(override, model_limit) if model_limit else override
    return min(model_limit, DEFAULT_OUTPUT_CAP) if model_limit else None


def for_turn(effort: str | None, override: int | None, model_limit: int | None) -> dict[str, Any]:
    """litellm keyword arguments for one agent turn."""
    params: dict[str, Any] = {}
    limit = output_limit(override, model_limit)
    if effort and effort != "off":
        params["reasoning_effort"] = effort
        budget = thinking_budget(effort)
        if limit is not None and budget and limit <= budget:
            limit = budget + ANSWER_ROOM  # Anthropic requires max_tokens > budget_tokens
    if limit is not None:
        params["max_tokens"] = limit
    return params
