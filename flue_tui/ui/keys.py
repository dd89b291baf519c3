"""Whether the configured model needs an API key the environment does not hold: the no-key screen
both front ends show at start, after `/model` and instead of sending a prompt that could only fail."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings


def missing_key(settings: Settings) -> str | None:
    """How to get going without the key the configured model needs, one sentence a line; None when
    no key is missing (model/keys.py decides, for every surface)."""
    from flue_tui.model.keyhelp import no_key_lines
    from flue_tui.model.keys import key_need

    model = settings.model or ""
    need = key_need(model, settings.api_base)
    if not (need.missing and need.well_known):
        return None
    return "\n".join(no_key_lines(model or None, need.var if model else None))


KEPT = "Not sent; your prompt is kept: send it again after /model provider/model or once the key is set."


def refusal(reason: str) -> str:
    """What a prompt that cannot be sent gets: the reason's first sentence (the whole no-key screen
    was shown at start or after /model) and that nothing typed is lost."""
    return f"{reason.splitlines()[0]}\n{KEPT}"
