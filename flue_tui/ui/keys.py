"""Whether the configured model needs an API key the environment does not hold (the startup warning)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings

NO_KEY = "No API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY, then restart flue."


def missing_key(settings: Settings) -> str | None:
    """One line telling how to set the API key the configured model needs, or None (model/keys.py decides)."""
    from flue_tui.model.keys import key_need

    model = settings.model or ""
    need = key_need(model, settings.api_base)
    if not (need.missing and need.well_known):
        return None
    var = need.var
    return f"No API key for {model}: set {var} (export {var}=...) and restart, or switch with /model provider/model."
