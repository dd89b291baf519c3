"""`!command` in the app: Session.shell (agent/usershell.py) in the agent's worker group, so Esc and
Ctrl+C interrupt it as they interrupt a turn; the block it shows comes from the event router."""

from __future__ import annotations

from typing import Any

from flue_tui.agent.usershell import BUSY


async def run_shell(app: Any, command: str) -> None:
    if app.session is None:
        app.notice(app.ctl.unavailable or "The session is still starting: run the command again in a moment.", "warn")
        return
    if app.busy:
        app.notice(BUSY, "warn")
        return
    app.busy = True  # before the worker starts, so an Enter meanwhile queues
    await app.conversation.jump_to_end()  # the block and its output are at the end
    app.run_worker(_shell(app, command), group="agent", exit_on_error=False)


async def _shell(app: Any, command: str) -> None:
    app._update_ticker()
    aborted = False
    try:
        result = await app.session.shell(command)
        aborted = result.aborted
        if aborted:
            app.notice(result.error, "warn")
    except Exception as exc:  # the UI must survive anything the session raises
        app.notice(f"{type(exc).__name__}: {exc}", "error")
    finally:
        app.busy = False
        app.router.set_activity("idle")
        app.request_flush()
    if not aborted:
        app.send_next()  # a prompt typed meanwhile was queued
