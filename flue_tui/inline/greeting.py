"""Inline mode's side of the welcome, the no-key refusal, the toolbar's fit and the turn-end
notification; the words are shared with the app (ui/welcome.py, ui/keys.py, ui/statusline.py,
ui/notify.py), only the writing is here."""

from __future__ import annotations

import shutil
from typing import Any

from flue_tui.agent import usage_text
from flue_tui.tools.background import jobs_of
from flue_tui.ui.keys import missing_key, refusal
from flue_tui.ui.notify import NOTIFY_AFTER_S, notification, turn_message
from flue_tui.ui.statusline import Part, fit, joined
from flue_tui.ui.welcome import welcome_text

HINTS = "/ commands · @ files · ctrl+j new line"


def welcome(app: Any, mode: str | None = None) -> str:
    policy = app.policy()
    s = app.settings
    if mode is None:
        mode = policy.mode if policy is not None else s.permission_mode or ""
    # Ctrl+C, not Esc: while a turn runs inline mode reads no keys, only the terminal's SIGINT.
    return welcome_text(cwd=s.cwd, model=s.model or "", mode=mode, sandbox=s.sandbox, interrupt_key="Ctrl+C")


async def welcome_first(app: Any) -> bool:
    """Before the first prompt of a fresh session: the welcome arrives with the input, not once the
    session has started (seconds, with litellm's import beside it). Whether it was said."""
    import asyncio

    from flue_tui.config.errors import ConfigError
    from flue_tui.permissions.config import mode_for

    opts = app.options
    if not app.settings.model or (opts is not None and (opts.named or opts.session_id)):
        return False  # no model: the no-key screen says it; a resume shows its recap instead
    try:
        mode = await asyncio.to_thread(mode_for, app.settings)  # a trusted project may set one
    except ConfigError:
        return False  # the start says what is wrong with the file
    app.renderer.note(welcome(app, mode), "welcome")
    return True


def unavailable(app: Any, exc: Exception) -> str:
    """Why no session started: with no model at all, the no-key screen one sentence a line."""
    return (None if app.settings.model else missing_key(app.settings)) or str(exc)


def refused(app: Any, text: str) -> bool:
    """A prompt that could only fail for want of a key is not sent: the no-key help, and the text
    comes back in the next prompt to send after /model (or once the key is set)."""
    hint = missing_key(app.settings)
    if hint is None:
        return False
    app.renderer.note(refusal(hint), "error")
    app.prompt.prefill = text
    return True


def columns() -> int:
    try:
        from prompt_toolkit.application import get_app_or_none

        running = get_app_or_none()
        if running is not None:
            return running.output.get_size().columns
    except Exception:  # no terminal to ask: the environment's idea of it
        pass
    return shutil.get_terminal_size().columns


def toolbar(app: Any, width: int | None = None) -> str:
    """model · session · mode · usage, then the key hints; the hints, the session name and the
    usage give way first so the line is never cut by the terminal's edge."""
    s = app.renderer.router.status
    policy = app.policy()
    state = "no session" if app.unavailable else "starting…"
    parts = [
        Part(app.settings.model or "no model", 4),
        Part(app.sessions.label() if app.sessions.started else state, 1),
        Part(f"{policy.mode} mode" if policy is not None else "", 8),
        Part(usage_text.brief(s.total), 2),
        Part(HINTS, 0, sep="   "),
    ]
    jobs = jobs_of(app.sessions.session)
    running = len(jobs.running()) if jobs is not None else 0
    if running:  # as the app's status bar counts them; /bashes lists, tails and stops them
        parts.insert(3, Part(f"{running} bg", 7))
    room = (width if width is not None else columns()) - 2  # the toolbar's padding
    line = joined(fit(parts, room))
    return line if len(line) <= room else line[: max(room - 1, 0)] + "…"


def notify_turn(app: Any, result: Any) -> None:
    """OSC 9 + BEL after a long turn (ui/notify.py says why long, not unfocused, here)."""
    if not app.settings.notify or app.dumb or result.duration_ms < NOTIFY_AFTER_S * 1000:
        return
    text = turn_message(app.sessions.label(), duration_ms=result.duration_ms, is_error=result.is_error)
    out = app.console.file
    out.write(notification(text))
    out.flush()
