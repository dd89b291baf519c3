"""The `/model` picker: the models of the configured providers, a local server and Ollama (local
first), filtered as you type; the current one marked. Enter switches, Esc cancels.

It opens at once and fills in when the sources have answered (model/discovery.py: at most ~1.5 s);
a source that failed is a dim line under the list. Ids are shown escaped (ModelChoice.shown).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from flue_tui.tui.screens.answered import Dialog
from flue_tui.ui import modelpick


class ModelPicker(Dialog[str | None]):
    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    #models { width: 90%; max-width: 100; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    #models-filter { margin: 0; }
    #models-list { height: 1fr; border: none; padding: 0; text-wrap: nowrap; text-overflow: ellipsis; }
    #models-notes { height: auto; max-height: 4; color: $text-muted; }
    #models-help { height: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: str | None, query: str = "") -> None:
        super().__init__()
        self.current = current
        self.query_text = query
        self.listing: Any = None  # ModelChoices once gathered
        self.shown: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="models"):
            yield Static(Text("Switch model", style="bold"), id="models-title")
            yield Input(self.query_text, placeholder="type to filter, e.g. sonnet or llama", id="models-filter")
            yield OptionList(Option(Text("looking for models…", style="dim"), disabled=True), id="models-list")
            yield Static("", id="models-notes")
            yield Static(Text("↑↓ choose · enter: switch · esc: cancel", style="dim"), id="models-help")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._gather()

    @work(exit_on_error=False)
    async def _gather(self) -> None:
        from flue_tui.runtime.handle import model_choices

        async for listing in model_choices(self.current):
            if self.gone:
                return  # chosen or cancelled while the sources were asked: nothing left to fill in
            self.listing = listing
            self.query_one("#models-title", Static).update(Text(modelpick.title(listing), style="bold"))
            notes = self.query_one("#models-notes", Static)
            notes.update(Text("\n".join(listing.notes), style="dim"))
            notes.display = bool(listing.notes)
            self.refilter()

    def refilter(self) -> None:
        if self.listing is None:
            return
        options = self.query_one(OptionList)
        was = options.highlighted
        keep = self.shown[was].id if was is not None and 0 <= was < len(self.shown) else None
        found = modelpick.matches(self.listing.choices, self.query_one(Input).value)
        self.shown = found[: modelpick.SHOWN]
        options.clear_options()
        options.add_options([self._row(c) for c in self.shown])
        if len(found) > len(self.shown):
            options.add_option(
                Option(Text(modelpick.more_line(len(found) - len(self.shown)), style="dim"), disabled=True)
            )
        if not found:
            options.add_option(Option(Text(modelpick.empty_line(self.listing), style="dim"), disabled=True))
        # The row the user is on stays chosen when the catalog arrives; else the first usable one.
        usable = [i for i, c in enumerate(self.shown) if c.usable]
        options.highlighted = next((i for i in usable if self.shown[i].id == keep), usable[0] if usable else None)

    def _row(self, choice: Any) -> Option:
        current = choice.id == self.current
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{modelpick.CURRENT_MARK if current else ' '} ", style="bold green")
        text.append(choice.shown, style="bold" if current else "" if choice.usable else "dim strike")
        text.append(f"  {modelpick.source_name(choice)}", style="dim")
        return Option(text, disabled=not choice.usable)

    @on(Input.Changed)
    def _changed(self) -> None:
        self.refilter()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is not None and 0 <= index < len(self.shown):
            self._choose(index)
            return
        typed = self.query_one(Input).value.strip()
        if self.listing is not None and "/" in typed and not self.shown:
            self.dismiss(typed)  # an id no source listed: as /model ID

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(event.option_index)

    def _choose(self, index: int) -> None:
        if 0 <= index < len(self.shown) and self.shown[index].usable:
            self.dismiss(self.shown[index].id)

    def on_key(self, event: Any) -> None:
        # Up/Down move through the list while the filter has the keyboard.
        if isinstance(self.focused, Input) and event.key in ("up", "down", "pageup", "pagedown"):
            options = self.query_one(OptionList)
            moves = {
                "up": options.action_cursor_up,
                "down": options.action_cursor_down,
                "pageup": options.action_page_up,
                "pagedown": options.action_page_down,
            }
            moves[event.key]()
            event.stop()

    def action_cancel(self) -> None:
        self.dismiss(None)
