"""Permission questions inline: the request printed into the scrollback, answered with one key.

The policy (flue_tui.permissions) calls `asker` and waits; the live area is paused meanwhile, so
the question and its answer stay in the scrollback as a record of what was allowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from flue_tui.inline import terminal
from flue_tui.inline.safe import Safe
from flue_tui.permissions.asking import MAX_LINES, ask_on_terminal, session_label
from flue_tui.permissions.policy import Approval, ApprovalRequest
from flue_tui.permissions.project import Pending, question
from flue_tui.permissions.project import ask_on_terminal as ask_on_terminal_trust
from flue_tui.ui import toolfmt

if TYPE_CHECKING:
    from flue_tui.inline.renderer import Renderer

# key → (choice, what the answered line says)
KEYS = {
    "y": ("once", "allowed once"),
    "1": ("once", "allowed once"),
    "a": ("session", "allowed for this session"),
    "2": ("session", "allowed for this session"),
    "n": ("deny", "denied"),
    "3": ("deny", "denied"),
    "escape": ("deny", "denied"),
    "m": ("note", "denied with a note"),
    "4": ("note", "denied with a note"),
    "c-c": ("interrupt", "denied · interrupting"),
}


def _body(request: ApprovalRequest) -> Text:
    if request.body_kind == "diff":
        body, hidden = toolfmt.diff_text(request.body, MAX_LINES)
        if hidden:
            body.append(f"\n… {hidden} more lines", style="dim")
    else:
        lines = request.body.splitlines()
        body = Text("\n".join(lines[:MAX_LINES]), style="bold" if request.body_kind == "command" else "")
        if len(lines) > MAX_LINES:
            body.append(f"\n… {len(lines) - MAX_LINES} more lines", style="dim")
    return Text("\n").join(Text("  │ ", style="dim") + line for line in body.split("\n"))


# The trust question's keys (flue_tui/permissions/project.py): y trusts the folder, anything else does not.
TRUST_KEYS = {
    "y": ("trust", "trusted"),
    "1": ("trust", "trusted"),
    "n": ("no", "not trusted · starting without them"),
    "2": ("no", "not trusted · starting without them"),
    "escape": ("no", "not trusted · starting without them"),
    "c-c": ("no", "not trusted · starting without them"),
}


async def _one_key(question: str, keys: dict[str, tuple[str, str]] = KEYS) -> str:
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import FormattedTextControl, Layout, Window

    answer: list[str] = []
    kb = KeyBindings()
    for key in keys:
        kb.add(key, eager=True)(lambda event, k=key: (answer.append(k), event.app.exit(result=k)))

    def text() -> Any:
        # Once answered, the line left in the scrollback says what was decided, not the menu.
        if answer:
            choice, said = keys[answer[0]]
            return [("bold green" if choice in ("once", "session", "trust") else "bold red", f"  → {said}")]
        return [("bold", question)]

    app: Application[str] = Application(
        layout=Layout(Window(FormattedTextControl(text), dont_extend_height=True)),
        key_bindings=kb,
        full_screen=False,
        erase_when_done=False,
    )
    # handle_sigint=False: the app would otherwise drop the turn's own SIGINT handler when it ends.
    return await app.run_async(handle_sigint=False)


def make_asker(renderer: Renderer, interrupt: Callable[[], None], dumb: bool) -> Any:
    """The policy's `asker` for inline mode."""

    async def ask(request: ApprovalRequest) -> Approval:
        with renderer.router.approval(request.tool_use_id):  # the call's clock waits for the answer
            return await _ask(request)

    async def _ask(request: ApprovalRequest) -> Approval:
        renderer.hold()
        try:
            if dumb:  # no cursor control: the plain front end's line question, which shows the call
                if request.body_kind == "diff":
                    renderer.diff_shown.add(request.tool_use_id)
                terminal.drop_typeahead()
                with terminal.normal_input():
                    return await ask_on_terminal(request)
            rules = session_label(request)
            who = renderer.router.who_asks(request.tool_use_id)  # a task's sub-agent, not the main agent
            renderer.print(
                Text.assemble(
                    (f"{who} asks: " if who else "", "bold yellow"),
                    (f"{request.title}?", "bold yellow"),
                    (f"  ({request.tool_name} · {request.mode} mode)", "dim"),
                ),
                "note",
            )
            renderer.console.print(Safe(_body(request)))
            if request.body_kind == "diff":
                renderer.diff_shown.add(request.tool_use_id)
            terminal.drop_typeahead()
            with terminal.normal_input():
                key = await _one_key(
                    f"  [y] allow once  [a] allow for this session: {rules}\n"
                    "  [n] deny  [m] deny with a note for the model"
                )
                choice = KEYS[key][0]
                if choice == "note":
                    from prompt_toolkit import PromptSession

                    note = await PromptSession().prompt_async("  note to the model: ", handle_sigint=False)
                    return Approval("deny", note=note.strip())
            if choice == "interrupt":
                interrupt()
                return Approval("deny")
            return Approval(choice)  # type: ignore[arg-type]
        except (EOFError, KeyboardInterrupt):
            return Approval("deny")
        finally:
            renderer.release()

    return ask


CONFIRM_KEYS = {
    "y": ("trust", "yes"),
    "n": ("no", "no · nothing was changed"),
    "escape": ("no", "no · nothing was changed"),
    "c-c": ("no", "no · nothing was changed"),
}


async def ask_yes_no(console: Any, title: str, lines: list[str], yes: str, dumb: bool) -> bool:
    """A yes/no question about something the user asked for (a rewind replacing others' files)."""
    console.print(Safe(Text(title, style="bold yellow")))
    console.print(Safe(Text("\n").join(Text("  │ ", style="dim") + Text(line) for line in lines)))
    if dumb:  # no cursor control: the answer is the command again, with `force`
        return False
    terminal.drop_typeahead()
    try:
        with terminal.normal_input():
            key = await _one_key(f"  [y] {yes}  [n] no, change nothing", CONFIRM_KEYS)
    except (EOFError, KeyboardInterrupt):
        return False
    return CONFIRM_KEYS[key][0] == "trust"


async def ask_trust(console: Any, asked: Pending, dumb: bool) -> bool:
    """Whether the user trusts the project's config (asked before the first session starts)."""
    if dumb:  # no cursor control: the plain front end's line question
        terminal.drop_typeahead()
        with terminal.normal_input():
            return await ask_on_terminal_trust(asked)
    title, lines = question(asked)
    console.print(Safe(Text(title, style="bold yellow")))
    console.print(Safe(Text("\n").join(Text("  │ ", style="dim") + Text(line) for line in lines)))
    terminal.drop_typeahead()
    try:
        with terminal.normal_input():
            key = await _one_key(
                "  [y] trust this folder (asked again if the file changes)  [n] not now, start without them", TRUST_KEYS
            )
    except (EOFError, KeyboardInterrupt):
        return False
    return TRUST_KEYS[key][0] == "trust"
