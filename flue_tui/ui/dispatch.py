"""Running a slash command (or `!command`) over the `FrontEnd` protocol: a table from each name to
its handler (ui/commands.py holds the names, /help and parsing). A name not in the table is a skill
or one line saying it is unknown, never a prompt.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from flue_tui.ui.commands import MODE_HELP, FrontEnd, help_text, hidden_text, unknown_text

if TYPE_CHECKING:
    from flue_tui.ui.router import Status


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
