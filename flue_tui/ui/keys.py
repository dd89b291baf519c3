"""Whether the configured model needs an API key the environment does not hold (the startup warning)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings

NO_KEY = "No API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY, then restart flue."

# Providers whose key lives in one well-known variable: warn at startup when it is missing.
_KEYED = ("anthropic", "openai", "gemini", "openrouter", "groq", "mistral", "deepseek", "xai")


def missing_key(settings: Settings) -> str | None:
    """One line telling how to set the API key the configured model needs, or None."""
    from flue_tui.model.litellm_client import key_var, provider_of

    model = settings.model or ""
    provider = provider_of(model) or "openai"
    if provider not in _KEYED or settings.api_base:
        return None
    if provider == "openai" and (os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_BASE")):
        return None
    var = key_var(model)
    if os.environ.get(var):
        return None
    return f"No API key for {model}: set {var} (export {var}=...) and restart, or switch with /model provider/model."
