"""The slash commands every front end offers: the table (for `/` completion, /help and the
command palette), the key help, the permission modes' one-line help, parsing `/name rest`, and the small front-end protocol
(`FrontEnd`) that ui/dispatch.py runs them over.

A command decides here what it says and does; the front end (the app, inline mode) only knows how
to show text, open a session picker or list, run a prompt, work in the background and quit. So
`/model` offers the same models and `/cost` says the same thing in both.
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from flue_tui.ui.termsafe import terminal_safe

if TYPE_CHECKING:
    from flue_tui.agent.session import Session
    from flue_tui.config.settings import Settings
    from flue_tui.context.skills import Skill
    from flue_tui.permissions.policy import PermissionPolicy
    from flue_tui.runtime.handle import SessionHandle
    from flue_tui.ui.router import Status


@dataclass(frozen=True, slots=True)
class Command:
    """A slash command as typed: its name, its arguments, and its help line."""

    name: str
    args: str
    help: str


COMMANDS: tuple[Command, ...] = (
    Command("help", "", "commands and keys"),
    Command("new", "", "start a fresh session"),
    Command("clear", "", "same as /new"),
    Command("resume", "[name]", "pick a session to resume"),
    Command("name", "NEW", "rename this session"),
    Command("model", "[provider/model]", "pick a model (type to filter), or switch to one"),
    Command("effort", "[off|low|medium|high]", "show or switch how hard the model thinks"),
    Command("compact", "[focus]", "summarise the conversation to free context"),
    Command("rewind", "[N [both|code|conversation]]", "go back to before a message: files, conversation or both"),
    Command("undo", "", "undo the last rewind, else the last turn's file changes"),
    Command("redo", "", "re-apply the rewind /undo undid"),
    Command("skills", "", "list the skills you can run as /<skill>"),
    Command("status", "", "model, session, mode, context, cost, sandbox, MCP"),
    Command("context", "", "what fills the context window"),
    Command("permissions", "", "the permission rules in force and their origin"),
    Command("hooks", "", "the hooks that run, their events, matchers and origin"),
    Command("cost", "", "tokens and cost so far"),
    Command("export", "[file.md]", "write the conversation to a Markdown file"),
    Command("mode", "[ask|accept-edits|plan|yolo]", "show or switch the permission mode"),
    Command("mcp", "[restart NAME]", "MCP servers, their status and tools"),
    Command("bashes", "[tail ID|kill ID]", "background commands: list, see the output of, stop"),
    Command("quit", "", "leave flue"),
)

KEYS = (
    ("enter", "send (queued while the agent works)"),
    ("shift+enter / ctrl+j", "new line"),
    ("up / down", "prompt history (at the first / last line)"),
    ("@", "complete a file path"),
    ("!command", "run a shell command yourself; the model sees it next turn"),
    ("esc", "interrupt the agent"),
    ("esc esc", "on an empty prompt: rewind (/rewind)"),
    ("ctrl+c twice", "quit"),
    ("ctrl+o", "expand / collapse tool output"),
    ("pageup / pagedown, ctrl+end", "scroll; jump to the latest"),
    ("ctrl+p", "command palette"),
    ("shift+tab", "permission mode: ask → accept-edits → plan"),
)


def help_text(skills: list[tuple[str, str]], keys: tuple[tuple[str, str], ...] = KEYS) -> str:
    width = max(len(f"/{c.name} {c.args}".strip()) for c in COMMANDS)
    lines = ["Commands:"]
    lines += [f"  {f'/{c.name} {c.args}'.strip():<{width}}  {c.help}" for c in COMMANDS]
    if skills:
        lines.append("Skills: " + ", ".join(f"/{name}" for name, _ in skills))
    lines.append("Keys:")
    kw = max(len(k) for k, _ in keys)
    lines += [f"  {k:<{kw}}  {v}" for k, v in keys]
    return "\n".join(lines)


def builtin_names() -> set[str]:
    return {c.name for c in COMMANDS} | {"exit"}


def runnables(skills: Any) -> list[tuple[str, str]]:
    """(name, description) of what `/name` runs besides the app's commands: skills, then Claude
    Code's custom commands. A name an app command has stays the app's (Claude Code's built-ins win
    too), so a repository's `help.md` never replaces /help; `/skills` says it is hidden."""
    listing = skills.listing() if skills is not None and hasattr(skills, "listing") else []
    # a repository's frontmatter: Textual and prompt-toolkit pass ESC through, so it is shown, never obeyed
    return [(n, terminal_safe(d)) for n, d in listing if n not in builtin_names()]


def hidden_text(skills: Any) -> str | None:
    """The line naming custom commands or skills an app command hides, or None."""
    listing = skills.listing() if skills is not None and hasattr(skills, "listing") else []
    hidden = [n for n, _ in listing if n in builtin_names()]
    if not hidden:
        return None
    return "Hidden by the app's own commands of the same name: " + ", ".join(f"/{n}" for n in hidden) + "."


def parse(text: str) -> tuple[str, str] | None:
    """`/name rest` → (name, rest); `!command` → ("!", command); None when the text is a prompt."""
    if text.startswith("!"):
        return "!", text[1:].strip()
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    head = head.strip()
    if not head or "/" in head:
        return None  # "/usr/bin/env ..." is a prompt, not a command
    return head, rest.strip()


MODE_HELP = {
    "ask": "write, edit and bash ask first",
    "accept-edits": "file changes run freely, bash asks",
    "plan": "read-only: write and edit are refused, and bash but for read-only commands (git diff, ls)",
    "yolo": "nothing asks",
}


class FrontEnd(Protocol):
    """What a slash command needs from the front end running it."""

    help_keys: tuple[tuple[str, str], ...]  # the keys this front end binds, for /help

    @property
    def settings(self) -> Settings: ...
    @property
    def session(self) -> Session | None: ...
    @property
    def handle(self) -> SessionHandle: ...  # what a session does (runtime/handle.py)
    @property
    def usage(self) -> Status: ...  # the totals the status line shows

    def notice(self, text: str, level: str = "info") -> None: ...  # show a line or a list
    def skill_list(self) -> list[tuple[str, str]]: ...
    def find_skill(self, name: str) -> Skill | None: ...
    async def run_skill(self, skill: Skill, extra: str) -> None: ...  # run it as a prompt
    async def run_shell(self, command: str) -> None: ...  # `!command`: Session.shell, shown as it runs
    def session_label(self) -> str: ...
    def context_label(self) -> str: ...  # "12,000 of 200,000 tokens (6%)", or "" when unknown
    def policy(self) -> PermissionPolicy | None: ...
    async def new_session(self) -> None: ...
    async def open_picker(self, ref: str | None) -> None: ...  # /resume: the picker, or a list
    async def rename_session(self, name: str) -> None: ...
    async def switch_model(self, model: str) -> None: ...
    async def pick_model(self, current: str | None, query: str) -> str | None: ...  # None: cancelled
    async def compact(self, focus: str | None) -> None: ...
    async def run_slow(self, job: Coroutine[Any, Any, None]) -> None: ...  # the app: in a worker
    def session_store(self) -> Any: ...  # the open SessionStore (checkpoints read its messages), or None
    async def pick_rewind(self, points: list[Any]) -> tuple[int, str] | None: ...  # None: shown or cancelled
    async def confirm(self, title: str, lines: list[str], yes: str) -> bool: ...  # a yes/no question
    async def continue_on(self, session_id: str, prompt: str) -> None: ...  # a rewind's fork, prompt refilled
    async def quit(self) -> None: ...


def unknown_text(
    name: str, skills: list[str], otherwise: str = "/help lists the commands.", *, commands: bool = True
) -> str:
    """`Unknown command /moddel — did you mean /model?`: the closest command or skill, if one is close."""
    import difflib

    from flue_tui.ui.termsafe import terminal_safe

    names = ([c.name for c in COMMANDS] + ["exit"] if commands else []) + skills
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
    shown = terminal_safe(name if len(name) <= 40 else name[:39] + "…")  # a pasted line is echoed, not obeyed
    if close:
        return f"Unknown command /{shown} — did you mean /{close[0]}?"
    return f"Unknown command /{shown}. {otherwise}"
