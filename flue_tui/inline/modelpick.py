"""Inline mode's `/model` picker: one prompt line (`model › `) with a completion menu of the models
(local first, the current one marked), filtered as you type; ↑↓ choose, Enter switches, Esc or
Ctrl+C (or Enter on an empty line) cancels. The menu takes a few rows, so it fits 80×24.

What was chosen stays in the scrollback as the answered prompt line; the sources that failed are
dim lines above it. Ids are shown escaped (ModelChoice.shown) and unusable ones are not offered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings

from flue_tui.ui import modelpick

if TYPE_CHECKING:
    from flue_tui.inline.renderer import Renderer
    from flue_tui.model.discovery import ModelChoices

MENU_ROWS = 8


class ModelCompleter(Completer):
    def __init__(self, listing: ModelChoices) -> None:
        self.listing = listing

    def get_completions(self, document: Any, complete_event: Any) -> Iterable[Completion]:
        typed = document.text
        found = [c for c in modelpick.matches(self.listing.choices, typed) if c.usable]
        for choice in found[: modelpick.SHOWN]:
            mark = f" {modelpick.CURRENT_MARK}" if choice.id == self.listing.current else ""
            yield Completion(
                choice.id,
                start_position=-len(typed),
                display=choice.shown + mark,
                display_meta=modelpick.source_name(choice),
            )


async def pick(renderer: Renderer, current: str | None, query: str = "") -> str | None:
    from flue_tui.runtime.handle import model_choices

    renderer.note("Looking for models…")
    steps = model_choices(current)
    listing = await anext(steps)  # the servers' answer; the catalog may follow while the menu is up
    renderer.note(modelpick.title(listing) + " · ↑↓ Enter · Esc cancels")
    for line in listing.notes:
        renderer.note(line)  # dim: a source that is not there is not an error
    if not listing.pending and not any(c.usable for c in listing.choices):
        renderer.note(modelpick.empty_line(listing), "warn")
    completer = ModelCompleter(listing)
    session: PromptSession[str] = PromptSession(
        message=FormattedText([("bold", "model › ")]),
        completer=completer,
        complete_while_typing=True,
        reserve_space_for_menu=MENU_ROWS,
        key_bindings=_keys(completer),
    )
    buffer = session.default_buffer

    async def the_rest() -> None:
        async for later in steps:
            completer.listing = later
            buffer.start_completion(select_first=False)  # the open menu shows the catalog too

    rest = asyncio.ensure_future(the_rest())
    try:
        answer = await session.prompt_async(default=query, pre_run=lambda: buffer.start_completion(select_first=False))
    finally:
        rest.cancel()
    answer = answer.strip()
    if "/" in answer:
        return answer
    why = f"No model matches {answer!r}" if answer else "No model chosen"
    renderer.note(f"{why}; still {current or 'no model'}.")
    return None


def _keys(completer: ModelCompleter) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _cancel(event: Any) -> None:
        event.app.exit(result="")

    @kb.add("enter")
    def _enter(event: Any) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        chosen = state.current_completion if state is not None else None
        if chosen is None and buffer.text.strip():  # nothing highlighted: the first match
            chosen = next(iter(completer.get_completions(buffer.document, None)), None)
        event.app.exit(result=chosen.text if chosen is not None else buffer.text.strip())

    return kb
