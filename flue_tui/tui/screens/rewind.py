"""/rewind's picker: the session's user messages, newest first, then what to restore.

Dismisses with (message number, "both" | "conversation" | "code"), or None on Esc.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from flue_tui.tui.screens.answered import Dialog
from flue_tui.ui.rewind import CHOICES, Point

CHOICE = "restore-"  # the id prefix of the second list's options (what to restore)


class RewindScreen(Dialog[tuple[int, str] | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    RewindScreen { align: center middle; }
    #rewind { width: 90%; max-width: 110; height: auto; max-height: 80%; border: round $accent; padding: 0 1; }
    #rewind-list { height: auto; max-height: 30; }
    """

    def __init__(self, points: list[Point]) -> None:
        super().__init__()
        self.points = list(reversed(points))  # the latest first: the usual target
        self.chosen: Point | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind"):
            yield Static(Text("Rewind to just before which message?", style="bold"), id="rewind-title")
            yield OptionList(*[self._option(p) for p in self.points], id="rewind-list")
            legend = "enter: choose · esc: cancel"
            if not all(p.has_files for p in self.points):  # explained only where it is shown
                legend += " · '(no files)': no file checkpoint"
            yield Static(Text(legend, style="dim"), id="rewind-legend")

    @staticmethod
    def _option(p: Point) -> Option:
        first = p.text.strip().splitlines()[0] if p.text.strip() else ""
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{p.number:>3}. ", style="dim")
        text.append(first)
        if not p.has_files:
            text.append("  (no files)", style="dim italic")
        return Option(text)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        # Which list a selection came from is told by its option, not by when it arrives: a second
        # Enter or click on the message list can be queued behind the one that replaced the list.
        what = (event.option.id or "").removeprefix(CHOICE)
        if what != (event.option.id or ""):
            if self.chosen is not None:
                self.dismiss((self.chosen.number, what))
            return
        if self.chosen is not None:
            return  # meant for the message list, which is gone: only a choice below restores
        self.chosen = self.points[event.option_index]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(label, id=f"{CHOICE}{name}") for name, label in CHOICES])
        options.highlighted = 0
        self.query_one("#rewind-title", Static).update(
            Text(f"Message {self.chosen.number}: what to restore?", style="bold")
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
