"""The approval dialog: the exact command or the diff, then allow once / allow for this session /
deny with a note to the model.

Keys: 1 or y allows once, 2 or a allows for the session, 3 or n opens the note field (Enter sends
the refusal with it), Esc refuses at once without a note. Arrow keys and Enter work on the list too.
A key typed before the dialog was there (queued while the app was busy with the call that asks, as
the user typed on) answers nothing, as inline mode drops its type-ahead before asking.
"""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from flue_tui.permissions.asking import session_label
from flue_tui.permissions.policy import Approval, ApprovalRequest
from flue_tui.tui.screens.answered import Question

NOTE_PLACEHOLDER = "Why not? (optional) · Enter denies · Esc: without a note"
MAX_BODY_LINES = 400  # a huge diff is cut for the dialog; the tool still gets its full arguments


def _body(request: ApprovalRequest):
    lines = request.body.splitlines()
    if request.body_kind == "diff":  # `--- a/x` / `+++ b/x` repeat the title's file: the room is the change's
        while lines and lines[0].startswith(("--- ", "+++ ")):
            lines.pop(0)
    text = "\n".join(lines[:MAX_BODY_LINES])
    if len(lines) > MAX_BODY_LINES:
        text += f"\n… {len(lines) - MAX_BODY_LINES} more lines"
    lexer = {"command": "bash", "diff": "diff", "json": "json"}.get(request.body_kind, "text")
    return Syntax(text, lexer, theme="ansi_dark", word_wrap=True, background_color="default")


# Lines the dialog needs besides the body: border and padding 4, title 2, body margin 1, the three
# choices in their box 5; and the note field with its margin 4, once it is open.
CHROME_LINES = 12
NOTE_LINES = 4
MIN_BODY_LINES = 3


class ApprovalScreen(Question[Approval]):
    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; }
    #approval { width: 90%; max-width: 120; height: auto; max-height: 100%; padding: 1 2;
                border: round $warning; background: $surface; }
    #approval-title { text-style: bold; margin: 0 0 1 0; }
    #approval-body { height: auto; margin: 0 0 1 0; }
    #approval-choices { height: auto; }
    #approval-note { margin: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("1,y", "choose('once')", "Allow once", show=False),
        Binding("2,a", "choose('session')", "Allow for session", show=False),
        Binding("3,n", "choose('deny')", "Deny", show=False),
        Binding("escape", "refuse", "Deny", show=False),
        # A modal screen keeps the app's Ctrl+C from arriving: twice still quits while a question waits.
        Binding("ctrl+c", "app.ctrl_c", "Quit", show=False),
    ]

    def __init__(self, request: ApprovalRequest, asker: str | None = None) -> None:
        super().__init__()
        self.request = request
        self.asker = asker  # "sub-agent flue-general (look around)" when a task's child asks

    def compose(self) -> ComposeResult:
        r = self.request
        rules = session_label(r)
        with Vertical(id="approval"):
            title = Text(f"{self.asker} asks: " if self.asker else "", style="bold yellow")
            title.append(f"{r.title}?", style="bold")
            title.append(f"   ({r.tool_name} · {r.mode} mode)", style="dim")
            yield Static(title, id="approval-title")
            with VerticalScroll(id="approval-body"):
                yield Static(_body(r))
            yield OptionList(
                Option(Text.assemble(("1 ", "dim"), "Allow once"), id="once"),
                Option(Text.assemble(("2 ", "dim"), "Allow for this session ", (f"({rules})", "dim")), id="session"),
                Option(Text.assemble(("3 ", "dim"), "Deny, with a note to the model"), id="deny"),
                id="approval-choices",
            )
            # Short enough to be read whole at 80 columns (the field's room there is ~60).
            note = Input(placeholder=NOTE_PLACEHOLDER, id="approval-note")
            note.display = False
            yield note

    def on_mount(self) -> None:
        self._fit_body()
        # The choices may not be in the DOM yet when a dialog is pushed right after another one
        # was dismissed; focus them once they are.
        self.call_after_refresh(self._focus_choices)

    def on_resize(self) -> None:
        self._fit_body()

    def _fit_body(self) -> None:
        """A long diff scrolls inside its box, which gets what the screen has left once the title,
        the choices and (when open) the note field are placed: on 80×24 the choices stay on screen."""
        note = next(self.query("#approval-note").results(Input), None)
        room = self.size.height - CHROME_LINES - (NOTE_LINES if note is not None and note.display else 0)
        for body in self.query("#approval-body"):
            body.styles.max_height = max(MIN_BODY_LINES, room)

    def _focus_choices(self) -> None:
        for choices in self.query(OptionList):
            choices.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.action_choose(event.option.id or "deny")

    def action_choose(self, choice: str) -> None:
        notes = self.query("#approval-note").results(Input)
        note = next(notes, None)
        if note is None:
            return  # not composed yet: the key came before the dialog was on screen
        if note.display:
            return  # typing the note: the shortcut letters are text
        if choice == "deny":
            note.display = True
            self._fit_body()  # the diff gives the note its lines
            note.focus()
            return
        self.dismiss(Approval(choice))  # type: ignore[arg-type]

    def action_refuse(self) -> None:
        self.dismiss(Approval("deny"))

    @on(Input.Submitted, "#approval-note")
    def _note(self, event: Input.Submitted) -> None:
        self.dismiss(Approval("deny", note=event.value))
