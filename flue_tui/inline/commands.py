"""Slash commands inline. The command table is shared (flue_tui/ui/commands.py),
so `/` completion and /help list the same names; the actions print lines instead of notices."""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from flue_tui.ui.commands import COMMANDS

if TYPE_CHECKING:
    from flue_tui.inline.app import InlineApp

KEYS = (
    ("enter", "send"),
    ("ctrl+j, alt+enter, \\ enter", "new line"),
    ("up / down", "prompt history (at the first / last line)"),
    ("@ / tab", "complete a file path or a /command"),
    ("esc esc", "clear the input"),
    ("ctrl+c", "interrupt the agent; twice at the prompt quits"),
    ("shift+tab", "permission mode: ask → accept-edits → plan"),
)


def help_text(skills: list[tuple[str, str]]) -> str:
    width = max(len(f"/{c.name} {c.args}".strip()) for c in COMMANDS)
    lines = ["Commands:", *(f"  {f'/{c.name} {c.args}'.strip():<{width}}  {c.help}" for c in COMMANDS)]
    if skills:
        lines.append("Skills: " + ", ".join(f"/{name}" for name, _ in skills))
    kw = max(len(k) for k, _ in KEYS)
    lines += ["Keys:", *(f"  {k:<{kw}}  {v}" for k, v in KEYS)]
    return "\n".join(lines)


async def run(app: InlineApp, name: str, arg: str) -> bool:
    """Run `/name arg`; False when it is neither a command nor a skill (then it is a prompt)."""
    say = app.renderer.note
    if name == "help":
        say(help_text(app.skill_list()))
    elif name in ("quit", "exit"):
        app.quitting = True
    elif name == "new":
        await app.switch_session(None)
    elif name == "resume":
        await _resume(app, arg)
    elif name == "name":
        if not arg:
            say(f"This session is {app.sessions.label()}. Rename it with /name NEW.")
        else:
            _try(app, lambda: app.sessions.rename(arg))
    elif name == "model":
        if not arg:
            from flue_tui.runtime.handle import model_listing

            say(await model_listing(app.settings.model))
        else:
            _try(app, lambda: app.sessions.switch_model(arg))
            if app.sessions.session is None and app.unavailable:
                app.start()  # the session could not start without a model: try again with this one
    elif name == "effort":
        _try(app, lambda: app.sessions.set_effort(arg))
    elif name == "compact":
        await app.compact(arg or None)
    elif name == "skills":
        skills = app.skill_list()
        if not skills:
            say("No skills found. Add one as .agents/skills/<name>/SKILL.md.")
        else:
            width = max(len(n) for n, _ in skills) + 1
            say("Skills (run one with /<name> [extra instructions]):\n"
                + "\n".join(f"  /{n:<{width}} {d}" for n, d in skills))
    elif name == "cost":
        from flue_tui.runtime.handle import cost_text

        s, session = app.renderer.router.status, app.sessions.session
        window = await asyncio.to_thread(session.context_window) if session is not None else None
        say(cost_text(s.total, s.tasks, s.context_tokens, window))
    elif name == "export":
        _export(app, arg)
    elif name == "mode":
        _mode(app, arg)
    elif name == "mcp":
        from flue_tui.mcp.commands import run as mcp_run

        text, level = await mcp_run(arg)
        say(text, level)
    else:
        skill = app.find_skill(name)
        if skill is None:
            return False
        from flue_tui.context.skills import skill_prompt

        await app.send(skill_prompt(skill, arg or None))
    return True


def _try(app: InlineApp, action: object) -> None:
    try:
        app.renderer.note(action())  # type: ignore[operator]
    except ValueError as exc:
        app.renderer.note(str(exc), "error")


async def _resume(app: InlineApp, arg: str) -> None:
    if not app.sessions.persist:
        app.renderer.note("Sessions are not saved in this run (--no-session-persistence).", "warn")
        return
    if arg:
        await app.switch_session(arg)
        return
    from flue_tui.store.values import local_time

    recent = app.sessions.recent()
    if not recent:
        app.renderer.note("No saved sessions in this directory yet.")
        return
    lines = [f"  {local_time(i.updated_at)}  {i.label}  ({i.message_count} messages)  {i.id}" for i in recent]
    app.renderer.note("Recent sessions (resume one with /resume NAME or an id prefix):\n" + "\n".join(lines))


def _export(app: InlineApp, arg: str) -> None:
    try:
        path = app.sessions.export(arg or None)
    except ValueError as exc:
        app.renderer.note(str(exc), "warn")
        return
    app.renderer.note(f"Exported the conversation to {os.path.relpath(path, app.settings.cwd)}")


def _mode(app: InlineApp, arg: str) -> None:
    from flue_tui.permissions.policy import MODES
    from flue_tui.ui.commands import MODE_HELP

    policy = app.policy()
    if policy is None:
        app.renderer.note("No session yet.", "warn")
    elif not arg:
        app.renderer.note(f"Permission mode: {policy.mode} ({MODE_HELP[policy.mode]}). "
                          f"Switch with /mode {'|'.join(MODES)} or Shift+Tab.")
    elif arg not in MODES:
        app.renderer.note(f"Unknown permission mode {arg!r}: choose one of {', '.join(MODES)}.", "error")
    else:
        policy.set_mode(arg)
        app.sessions.keep_mode(arg)  # /new and /resume keep the mode the user chose
        app.renderer.note(f"Permission mode: {arg} ({MODE_HELP[arg]}).")
