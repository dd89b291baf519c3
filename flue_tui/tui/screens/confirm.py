"""A yes/no question about something the user asked for: a rewind, undo or redo that would
replace files the session's own turns did not leave (ui/rewind.question words it).

Keys: 1 or y goes ahead, 2, n or Esc changes nothing.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from flue_tui.tui.screens.answered import Question


class ConfirmScreen(Question[bool]):
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    #confirm { width: 90%; max-width: 120; height: auto; max-height: 90%; padding: 1 2;
               border: round $warning; background: $surface; }
    #confirm-title { text-style: bold; margin: 0 0 1 0; }
    #confirm-body { height: auto; max-height: 8; margin: 0 0 1 0; }
    #confirm-choices { height: auto; }
    """
    BINDINGS = [
        Binding("1,y", "answer(True)", "Yes", show=False),
        Binding("2,n,escape", "answer(False)", "No", show=False),
    ]

    def __init__(self, title: str, lines: list[str], yes: str) -> None:
        super().__init__()
        self.title_text, self.lines, self.yes = title, lines, yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(Text(self.title_text, style="bold"), id="confirm-title")
            with VerticalScroll(id="confirm-body"):
                yield Static(Text("\n".join(f"  {line}" for line in self.lines)))
            yield OptionList(
                Option(Text.assemble(("1 ", "dim"), self.yes[:1].upper() + self.yes[1:]), id="yes"),
                Option(Text.assemble(("2 ", "dim"), "No, change nothing"), id="no"),
                id="confirm-choices",
            )

    def on_mount(self) -> None:
        self.call_after_refresh(self._focus_choices)

    def _focus_choices(self) -> None:
        for choices in self.query(OptionList):
            choices.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_answer(event.option.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
