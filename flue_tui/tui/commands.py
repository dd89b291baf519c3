"""The app's slash-command actions; the table, /help text and parsing are in flue_tui/ui/commands.py."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from flue_tui.agent import usage_text
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
        import asyncio

        from flue_tui.model.catalog import configured_providers, known_models

        providers = configured_providers()
        listing = await asyncio.to_thread(known_models, providers) if providers else {}
        lines = []
        for provider, names in listing.items():
            shown = ", ".join(names[:12]) + (f", … {len(names) - 12} more" if len(names) > 12 else "")
            lines.append(f"  {provider}: {shown or '(none known; any id the provider serves works)'}")
        app.notice(f"Model: {app.settings.model or '(none)'}. Switch with /model provider/model.\n"
                   + ("\n".join(lines) if lines else "  No provider key is set, so no models to list."))
        return
    app.switch_model(arg)


async def _effort(app: FlueApp, arg: str) -> None:
    from flue_tui.model.turn_params import set_effort

    try:
        app.notice(set_effort(app.settings, app.session, arg))
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
    s = app.router.status
    app.notice(usage_text.detailed(s.total, tasks=s.tasks)
               + (f" · context {app.context_label()}" if app.context_label() else ""))


async def _export(app: FlueApp, arg: str) -> None:
    from flue_tui.ui.export import export_markdown

    if app.session is None:
        app.notice("Nothing to export yet.", "warn")
        return
    path = export_markdown(app.session.messages, app.settings.cwd, arg or None, app.session_label(),
                           app.settings.model or "")
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


async def _rewind(app: FlueApp, arg: str) -> None:
    import asyncio

    from flue_tui.tui.screens.rewind import RewindScreen
    from flue_tui.ui import rewind as rw

    session, store, cwd = app.session, app.ctl.store, app.settings.cwd
    if session is None or session.running:
        app.notice("Rewind when the agent is idle (Esc stops it)." if session else "Nothing to rewind yet.", "warn")
        return
    picked = rw.parse_arg(arg)
    if isinstance(picked, str):
        app.notice(picked, "error")
        return

    async def choose() -> None:
        nonlocal picked
        if picked is None:
            points = await asyncio.to_thread(rw.points, session, store, cwd)
            if not points:
                app.notice("Nothing to rewind yet: this session has no messages.", "warn")
                return
            picked = await app.push_screen_wait(RewindScreen(points))
            if picked is None:
                return
        done = await asyncio.to_thread(rw.rewind, session, store, cwd, *picked)
        app.notice(done.message, "error" if done.error else "info")
        if done.fork_id is not None:
            await app.ctl.replace(done.fork_id)
            app.prompt.set_text(done.prompt or "")

    app.run_worker(choose(), group="rewind", exclusive=True, exit_on_error=False)


async def _undo(app: FlueApp, arg: str) -> None:
    import asyncio

    from flue_tui.ui import rewind as rw

    session = app.session
    if session is None or session.running:
        app.notice("Undo when the agent is idle (Esc stops it)." if session else "Nothing to undo yet.", "warn")
        return
    done = await asyncio.to_thread(rw.undo, session, app.settings.cwd)
    app.notice(done.message, "error" if done.error else "info")


async def _quit(app: FlueApp, arg: str) -> None:
    await app.action_quit()


_HANDLERS = {
    "help": _help, "new": _new, "resume": _resume, "name": _name, "model": _model, "effort": _effort,
    "compact": _compact, "skills": _skills, "cost": _cost, "export": _export, "mode": _mode, "mcp": _mcp,
    "rewind": _rewind, "undo": _undo, "quit": _quit, "exit": _quit,
}
