"""The trust question: a project's .flue/config.toml asks to loosen protection (allow rules, the
default blocklist off, [env] variables); until the user says yes here, those settings are ignored.

Keys: 1 or y trusts the folder (remembered until the file changes), 2, n or Esc starts without them.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from flue_tui.permissions.project import Pending, question
from flue_tui.tui.screens.answered import Question


class TrustScreen(Question[bool]):
    DEFAULT_CSS = """
    TrustScreen { align: center middle; }
    #trust { width: 90%; max-width: 120; height: auto; max-height: 90%; padding: 1 2;
             border: round $warning; background: $surface; }
    #trust-title { text-style: bold; margin: 0 0 1 0; }
    #trust-body { height: auto; max-height: 16; margin: 0 0 1 0; }
    #trust-choices { height: auto; }
    """
    BINDINGS = [
        Binding("1,y", "answer(True)", "Trust", show=False),
        Binding("2,n,escape", "answer(False)", "Not now", show=False),
    ]

    def __init__(self, asked: Pending) -> None:
        super().__init__()
        self.asked = asked

    def compose(self) -> ComposeResult:
        title, lines = question(self.asked)
        with Vertical(id="trust"):
            yield Static(Text(title, style="bold"), id="trust-title")
            with VerticalScroll(id="trust-body"):
                yield Static(Text("\n".join(f"  {line}" for line in lines)))
            yield OptionList(
                Option(
                    Text.assemble(
                        ("1 ", "dim"), "Trust this folder ", ("(apply them; asked again if the file changes)", "dim")
                    ),
                    id="yes",
                ),
                Option(Text.assemble(("2 ", "dim"), "Not now ", ("(start without them)", "dim")), id="no"),
                id="trust-choices",
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
