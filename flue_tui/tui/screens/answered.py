"""The one rule every screen of the app follows when it gives its answer: once only.

Two answers can be queued for one screen: Enter on the list and a `1` typed in the same read of
the terminal, a double click, Esc right behind Enter. Textual's `Screen.dismiss` pops whatever
screen is on top, so a second answer would pop the app's main screen (ScreenStackError: the app
dies) or another dialog pushed meanwhile, whose waiter then never hears back (a tool call hangs).
Here an answer from a screen that is no longer the top one is dropped.
"""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual._time import get_time  # the clock Textual stamps input events with
from textual.await_complete import AwaitComplete
from textual.screen import ModalScreen, Screen

ResultT = TypeVar("ResultT")


class AnsweredOnce(Screen[ResultT]):
    """A screen whose first `dismiss` counts; later ones (stale keys, clicks) do nothing."""

    @property
    def gone(self) -> bool:
        """Answered (off the stack) or removed: work that finishes after an await (a list read in a
        thread) must leave its widgets alone, they are being taken down."""
        return not self.is_attached or self not in self.app.screen_stack

    def dismiss(self, result: ResultT | None = None) -> AwaitComplete:
        if not self.is_active:  # answered already (or covered: Textual would pop the wrong screen)
            return AwaitComplete.nothing()
        return super().dismiss(result)


class Dialog(ModalScreen[ResultT], AnsweredOnce[ResultT]):
    """A modal screen that answers once. ModalScreen first: Textual takes default CSS along the
    first base only, and a modal's see-through background is in ModalScreen's."""


class Question(Dialog[ResultT]):
    """A dialog answered with single keys (allow, trust, delete): a key stamped before it was
    mounted was typed on while the app was busy bringing it up, before anyone could read it, and
    answers nothing, as inline mode drops its type-ahead before it asks (Ctrl+C still counts
    towards quitting). Pickers, whose typing filters a list, are plain Dialogs."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        self.opened_at = get_time()  # once more at mount

    def _on_mount(self, event: events.Mount) -> None:
        self.opened_at = get_time()

    def on_key(self, event: events.Key) -> None:
        # Textual calls this before the screen's bindings and a focused list's Enter.
        if event.time < self.opened_at and event.key != "ctrl+c":
            event.stop()
            event.prevent_default()
