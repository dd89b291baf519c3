"""Which chat models the configured providers offer, from litellm's bundled map (for `/model`)."""

from __future__ import annotations

from flue_tui.model.keys import configured_providers
from flue_tui.model.loader import get_litellm

__all__ = ["configured_providers", "known_models"]


def is_chat_model(info: dict) -> bool:
    """A model one can hold a conversation with: litellm's mode "chat" and a token price or a
    window. `openai/container` (a code-interpreter session) is "chat" in the map with neither."""
    if info.get("mode") != "chat":
        return False
    return any(info.get(k) for k in ("input_cost_per_token", "max_input_tokens", "max_tokens"))


def known_models(providers: list[str]) -> dict[str, list[str]]:
    """`provider/model` chat models per provider, sorted; imports litellm (call it off the UI thread)."""
    litellm = get_litellm()
    out: dict[str, list[str]] = {}
    for provider in providers:
        names = set()
        for name in litellm.models_by_provider.get(provider, ()):
            info = litellm.model_cost.get(name) or litellm.model_cost.get(f"{provider}/{name}") or {}
            if is_chat_model(info):
                names.add(name if name.startswith(f"{provider}/") else f"{provider}/{name}")
        out[provider] = sorted(names)
    return out
