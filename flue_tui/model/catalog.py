"""Which models the configured providers offer, from litellm's bundled map (for `/model`)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from flue_tui.model.litellm_client import _KEY_VARS
from flue_tui.model.loader import get_litellm


def configured_providers(environ: Mapping[str, str] = os.environ) -> list[str]:
    """Providers whose API key is set, plus `openai` when an OpenAI-compatible endpoint is."""
    found = [provider for provider, var in _KEY_VARS.items() if environ.get(var)]
    if environ.get("OPENAI_BASE_URL") and "openai" not in found:
        found.append("openai")
    return found


def known_models(providers: list[str]) -> dict[str, list[str]]:
    """`provider/model` chat models per provider, sorted; imports litellm (call it off the UI thread)."""
    litellm = get_litellm()
    out: dict[str, list[str]] = {}
    for provider in providers:
        names = set()
        for name in litellm.models_by_provider.get(provider, ()):
            info = litellm.model_cost.get(name) or litellm.model_cost.get(f"{provider}/{name}") or {}
            if info.get("mode", "chat") != "chat":
                continue
            names.add(name if name.startswith(f"{provider}/") else f"{provider}/{name}")
        out[provider] = sorted(names)
    return out
