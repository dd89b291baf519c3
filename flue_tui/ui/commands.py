"""The slash commands every front end offers: the table (for `/` completion, /help and the
command palette), the key help, the permission modes' one-line help, parsing `/name rest`, and the
one dispatcher that runs them over a small front-end protocol (`FrontEnd`).

A command decides here what it says and does; the front end (the app, inline mode) only knows how
to show text, open a session picker or list, run a prompt, work in the background and quit. So
`/model` offers the same models and `/cost` says the same thing in both.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Awaitable, Callable, Coroutine
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


async def dispatch(fe: FrontEnd, name: str, arg: str) -> bool:
    """Run `/name arg` (or `!command`): a command, a skill, or one line saying the name is unknown
    (never a prompt: `parse` already left `//text` and `/usr/bin/env …` to be prompts)."""
    handler = HANDLERS.get(name)
    if handler is not None:
        await handler(fe, name, arg)
        return True
    skill = fe.find_skill(name)
    if skill is None:  # never a prompt: a typo must not cost a turn or title a session
        fe.notice(unknown_text(name, [n for n, _ in fe.skill_list()]), "warn")
    else:
        await fe.run_skill(skill, arg)
    return True


Handler = Callable[["FrontEnd", str, str], Awaitable[None]]


async def _shell(fe: FrontEnd, _name: str, arg: str) -> None:
    from flue_tui.agent.usershell import BUSY, USAGE

    session = fe.session
    if not arg:
        fe.notice(USAGE, "warn")
    elif session is not None and session.running:
        fe.notice(BUSY, "warn")
    else:
        await fe.run_shell(arg)


async def _quit(fe: FrontEnd, _name: str, _arg: str) -> None:
    await fe.quit()


async def _help(fe: FrontEnd, _name: str, _arg: str) -> None:
    fe.notice(help_text(fe.skill_list(), fe.help_keys))


async def _new(fe: FrontEnd, _name: str, _arg: str) -> None:
    await fe.new_session()


async def _resume(fe: FrontEnd, _name: str, arg: str) -> None:
    await fe.open_picker(arg or None)


async def _name(fe: FrontEnd, _name: str, arg: str) -> None:
    if arg:
        await fe.rename_session(arg)
    else:
        fe.notice(f"This session is {fe.session_label()}. Rename it with /name NEW.")


async def _model(fe: FrontEnd, _name: str, arg: str) -> None:
    if "/" in arg:
        await fe.switch_model(arg)
    else:  # `/model` or `/model sonnet`: the picker, filtered by what was typed
        await fe.run_slow(_pick_model(fe, arg))


async def _effort(fe: FrontEnd, _name: str, arg: str) -> None:
    try:
        fe.notice(fe.handle.set_effort(arg))
    except ValueError as exc:
        fe.notice(str(exc), "error")


async def _compact(fe: FrontEnd, _name: str, arg: str) -> None:
    await fe.compact(arg or None)


async def _skills_cmd(fe: FrontEnd, _name: str, _arg: str) -> None:
    _skills(fe)


async def _cost_cmd(fe: FrontEnd, _name: str, _arg: str) -> None:
    await _cost(fe)


async def _status(fe: FrontEnd, name: str, _arg: str) -> None:  # /status, /context, /permissions
    from flue_tui.ui import status_text

    fe.notice(await getattr(status_text, name)(fe))


async def _hooks(fe: FrontEnd, _name: str, _arg: str) -> None:
    from flue_tui.ui.hooks_text import describe

    fe.notice(await asyncio.to_thread(describe, fe.handle))


async def _export_cmd(fe: FrontEnd, _name: str, arg: str) -> None:
    _export(fe, arg)


async def _mode_cmd(fe: FrontEnd, _name: str, arg: str) -> None:
    _mode(fe, arg)


async def _mcp_cmd(fe: FrontEnd, _name: str, arg: str) -> None:
    await fe.run_slow(_mcp(fe, arg))


async def _bashes(fe: FrontEnd, _name: str, arg: str) -> None:
    from flue_tui.ui.bashes import bashes

    bashes(fe, arg)


async def _rewind_cmd(fe: FrontEnd, name: str, arg: str) -> None:  # /rewind, /undo, /redo
    await fe.run_slow(_rewind(fe, name, arg))


# Each command's name (and its aliases) → what runs it; a name not here is a skill or unknown.
HANDLERS: dict[str, Handler] = {
    "!": _shell,
    "quit": _quit,
    "exit": _quit,
    "help": _help,
    "new": _new,
    "clear": _new,
    "resume": _resume,
    "name": _name,
    "model": _model,
    "effort": _effort,
    "compact": _compact,
    "skills": _skills_cmd,
    "cost": _cost_cmd,
    "status": _status,
    "context": _status,
    "permissions": _status,
    "hooks": _hooks,
    "export": _export_cmd,
    "mode": _mode_cmd,
    "mcp": _mcp_cmd,
    "bashes": _bashes,
    "rewind": _rewind_cmd,
    "undo": _rewind_cmd,
    "redo": _rewind_cmd,
}


async def _pick_model(fe: FrontEnd, query: str) -> None:
    chosen = await fe.pick_model(fe.settings.model, query)
    if chosen and chosen != fe.settings.model:
        await fe.switch_model(chosen)  # the one switch (SessionHandle.switch_model), as /model ID


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


def _skills(fe: FrontEnd) -> None:
    skills = fe.skill_list()
    hidden = hidden_text(getattr(fe.handle.context, "skills", None))
    if not skills:
        fe.notice(
            "No skills found. Add one as .agents/skills/<name>/SKILL.md, or a command as .claude/commands/<name>.md."
            + (f"\n{hidden}" if hidden else "")
        )
        return
    width = max(len(n) for n, _ in skills) + 1
    fe.notice(
        "Skills and commands (run one with /<name> [arguments]):\n"
        + "\n".join(f"  /{n:<{width}} {d}" for n, d in skills)
        + (f"\n{hidden}" if hidden else "")
    )


async def _cost(fe: FrontEnd) -> None:
    from flue_tui.runtime.costs import cache_cost, cost_text

    status, session, settings = fe.usage, fe.session, fe.settings
    window = await asyncio.to_thread(session.context_window) if session is not None else None
    cache = await asyncio.to_thread(cache_cost, settings, status.total)  # litellm's cache rates
    stored = await asyncio.to_thread(fe.handle.children_totals)  # every run's; else this run's
    children = dataclasses.replace(
        stored or status.children, priced=(stored or status.children).priced and status.children.priced
    )
    text = cost_text(
        status.total,
        status.tasks,
        status.context_tokens,
        window,
        children=children,
        unpriced=_unpriced(status, settings.model),
        cache_usd=cache,
    )
    fe.notice(text)


def _unpriced(status: Status, model: str | None) -> tuple[str, ...]:
    """Whose price is unknown, as far as this run saw (a resumed total only says "some model")."""
    names = dict.fromkeys([model or "the model"] if status.own_unpriced else [])
    for child in status.unpriced_tasks:  # a sub-agent on the session's own model is named once
        names[child or "a task sub-agent's model"] = None
    if not status.children.priced and not status.unpriced_tasks:
        names["a task sub-agent's model"] = None
    return tuple(names)


def _export(fe: FrontEnd, arg: str) -> None:
    try:  # the one redacting exporter, as `flue sessions export`
        path = fe.handle.export(arg or None)
    except ValueError as exc:
        fe.notice(str(exc), "warn")
        return
    fe.notice(f"Exported the conversation to {os.path.relpath(path, fe.settings.cwd)}")


def _mode(fe: FrontEnd, arg: str) -> None:
    """/mode [ask|accept-edits|plan|yolo]; the policy tells its listeners, who keep the choice."""
    from flue_tui.permissions.policy import MODES

    policy = fe.policy()
    if policy is None:
        fe.notice("No session yet.", "warn")
    elif not arg:
        fe.notice(
            f"Permission mode: {policy.mode} ({MODE_HELP[policy.mode]}). Switch with /mode "
            f"{'|'.join(MODES)} or Shift+Tab."
        )
    elif arg not in MODES:
        fe.notice(f"Unknown permission mode {arg!r}: choose one of {', '.join(MODES)}.", "error")
    else:
        policy.set_mode(arg)
        fe.notice(f"Permission mode: {arg} ({MODE_HELP[arg]}).")


async def _mcp(fe: FrontEnd, arg: str) -> None:
    from flue_tui.mcp.commands import run as mcp_run

    text, level = await mcp_run(arg)  # a restart waits for the server
    fe.notice(text, level)


async def _confirmed(fe: FrontEnd, done: Any) -> bool:
    """The question before a rewind, undo or redo replaces files the session's turns did not leave."""
    from flue_tui.ui import rewind as rw

    title, lines = rw.question(done)
    return await fe.confirm(title, lines, "yes, replace them (/undo puts them back)")


async def _rewind(fe: FrontEnd, name: str, arg: str) -> None:
    """/undo; /rewind (pick a message) and /rewind N [both|code|conversation] (files, conversation or both)."""
    import asyncio

    from flue_tui.ui import rewind as rw

    session, cwd = fe.session, fe.settings.cwd
    if session is None or session.running:
        fe.notice(
            f"{name.capitalize()} when the agent is idle (Esc stops it)." if session else f"Nothing to {name} yet.",
            "warn",
        )
        return
    if name in ("undo", "redo"):
        if arg.strip() not in ("", rw.FORCE):
            fe.notice(
                f"Use /{name}, or /{name} {rw.FORCE} to also replace files this session's turns did not leave.", "error"
            )
            return
        step = rw.undo if name == "undo" else rw.redo
        done = await asyncio.to_thread(step, session, cwd, arg.strip() == rw.FORCE)
        if done.foreign and await _confirmed(fe, done):
            done = await asyncio.to_thread(step, session, cwd, True)
        fe.notice(done.message, "error" if done.error else "info")
        return
    picked = rw.parse_arg(arg)
    if isinstance(picked, str):
        fe.notice(picked, "error")
        return
    store = fe.session_store()
    if picked is None:
        points = await asyncio.to_thread(rw.points, session, store, cwd)
        if not points:
            fe.notice("Nothing to rewind yet: this session has no messages.", "warn")
            return
        chosen = await fe.pick_rewind(points)
        if chosen is None:
            return
        picked = (*chosen, False)
    done = await asyncio.to_thread(rw.rewind, session, store, cwd, *picked)
    if done.foreign and await _confirmed(fe, done):
        done = await asyncio.to_thread(rw.rewind, session, store, cwd, *picked[:2], True)
    fe.notice(done.message, "error" if done.error else "info")
    if done.fork_id is not None:
        await fe.continue_on(done.fork_id, done.prompt or "")
        if done.stepped and fe.session is not None:
            rw.stepped(fe.session)
