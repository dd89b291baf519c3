"""The app's slash-command actions; the table, /help text and parsing are in flue_tui/ui/commands.py."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from flue_tui.ui.commands import help_text

if TYPE_CHECKING:
    from flue_tui.tui.app import FlueApp


async def run(app: FlueApp, name: str, arg: str) -> bool:
    """Run a slash command; False when `name` is neither a command nor a skill."""
    handler = _HANDLERS.get(name)
    if handler is not None:
        await handler(app, arg)
        return True
    skill = app.find_skill(name)
    if skill is not None:
        app.run_skill(skill, arg)
        return True
    return False


async def _help(app: FlueApp, arg: str) -> None:
    app.notice(help_text(app.skill_list()))


async def _new(app: FlueApp, arg: str) -> None:
    await app.new_session()


async def _resume(app: FlueApp, arg: str) -> None:
    await app.open_picker(arg or None)


async def _name(app: FlueApp, arg: str) -> None:
    if not arg:
        app.notice(f"This session is {app.session_label()}. Rename it with /name NEW.")
        return
    await app.rename_session(arg)


async def _model(app: FlueApp, arg: str) -> None:
    if not arg:
        from flue_tui.runtime.handle import model_listing

        app.notice(await model_listing(app.settings.model))
        return
    app.switch_model(arg)


async def _effort(app: FlueApp, arg: str) -> None:
    try:
        app.notice(app.ctl.handle.set_effort(arg))
    except ValueError as exc:
        app.notice(str(exc), "error")


async def _compact(app: FlueApp, arg: str) -> None:
    app.compact(arg or None)


async def _skills(app: FlueApp, arg: str) -> None:
    skills = app.skill_list()
    if not skills:
        app.notice("No skills found. Add one as .agents/skills/<name>/SKILL.md.")
        return
    width = max(len(n) for n, _ in skills) + 1
    app.notice("Skills (run one with /<name> [extra instructions]):\n"
               + "\n".join(f"  /{n:<{width}} {d}" for n, d in skills))


async def _cost(app: FlueApp, arg: str) -> None:
    from flue_tui.runtime.handle import cost_text

    s = app.router.status
    app.notice(cost_text(s.total, s.tasks, s.context_tokens, app.context_window))


async def _export(app: FlueApp, arg: str) -> None:
    try:
        path = app.ctl.handle.export(arg or None)
    except ValueError as exc:
        app.notice(str(exc), "warn")
        return
    app.notice(f"Exported the conversation to {os.path.relpath(path, app.settings.cwd)}")


async def _mode(app: FlueApp, arg: str) -> None:
    from flue_tui.tui import approvals

    approvals.set_mode(app, arg)


async def _mcp(app: FlueApp, arg: str) -> None:
    from flue_tui.mcp.commands import run as mcp_run

    async def answer() -> None:  # a restart waits for the server: in a worker, so keys still work
        text, level = await mcp_run(arg)
        app.notice(text, level)

    app.run_worker(answer(), group="mcp", exit_on_error=False)


async def _quit(app: FlueApp, arg: str) -> None:
    await app.action_quit()


_HANDLERS = {
    "help": _help, "new": _new, "resume": _resume, "name": _name, "model": _model, "effort": _effort,
    "compact": _compact, "skills": _skills, "cost": _cost, "export": _export, "mode": _mode, "mcp": _mcp,
    "quit": _quit, "exit": _quit,
}
