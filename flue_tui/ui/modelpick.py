"""What the `/model` picker shows, the same in the app and inline mode: the matches of what was
typed (every word a substring of the id or its source, else the letters in order), the current
model marked, and a cap on how many rows are built (a server may list thousands)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.model.discovery import ModelChoice, ModelChoices

SHOWN = 200  # rows built per keystroke; the rest are counted ("type to narrow")
CURRENT_MARK = "●"
SOURCE_NAMES = {"local server": "local", "ollama": "ollama", "current": "current"}


def matches(choices: Sequence[ModelChoice], query: str) -> list[ModelChoice]:
    words = query.lower().split()
    if not words:
        return list(choices)
    hay = [(c, f"{c.id} {c.source}".lower()) for c in choices]
    found = [c for c, h in hay if all(w in h for w in words)]
    if found:
        return found
    letters = "".join(words)
    return [c for c, h in hay if _in_order(letters, h)]


def _in_order(letters: str, text: str) -> bool:
    it = iter(text)
    return all(ch in it for ch in letters)


def source_name(choice: ModelChoice) -> str:
    return SOURCE_NAMES.get(choice.source, choice.source)


def title(listing: ModelChoices) -> str:
    more = " · loading the catalog…" if listing.pending else ""
    n = len(listing.choices)
    return f"Switch model · {n} model{'' if n == 1 else 's'}{more}"


def more_line(hidden: int) -> str:
    return f"… {hidden:,} more: type to narrow"


def empty_line(listing: ModelChoices) -> str:
    if listing.choices:
        return "no models match; Enter on an id provider/model switches to it anyway"
    return "no models found: set a provider key, OPENAI_BASE_URL or start Ollama (see flue doctor)"
