"""The app's side of the permission policy: it answers the policy's questions with the approval
dialog, switches modes (Shift+Tab, /mode) and shows the mode in the status bar.

The policy itself (flue_tui.permissions) knows nothing of Textual; this module plugs the dialog in
as its `asker` whenever the app attaches a session.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from flue_tui.permissions.policy import MODES, Approval, ApprovalRequest, PermissionPolicy, policy_of
from flue_tui.ui.commands import MODE_HELP

if TYPE_CHECKING:
    from flue_tui.tui.app import FlueApp

def install(app: FlueApp, session: Any) -> None:
    """Make `app` the one who answers `session`'s permission questions."""
    policy = policy_of(session)
    if policy is None:
        return

    async def ask(request: ApprovalRequest) -> Approval:
        router = getattr(app, "router", None)
        if router is not None:  # the status bar says what the agent is really doing: waiting for you
            router.set_activity("waiting for your approval")
            app.request_flush()
        answer = await ask_with_dialog(app, request)
        if router is not None:
            router.set_activity(f"running {request.tool_name}" if answer.choice != "deny" else "working")
            app.request_flush()
        return answer

    policy.asker = ask

    def changed(mode: str) -> None:
        app.ctl.handle.keep_mode(mode)  # so /new and /resume keep the mode the user chose
        app.refresh_status()

    policy.listeners.append(changed)


async def ask_with_dialog(app: Any, request: ApprovalRequest) -> Approval:
    """Push the dialog and wait for its answer (the agent's tool call waits meanwhile)."""
    from flue_tui.tui.screens.approval import ApprovalScreen

    answer: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()

    def done(result: Approval | None) -> None:
        if not answer.done():
            answer.set_result(result if isinstance(result, Approval) else Approval("deny"))

    app.push_screen(ApprovalScreen(request), callback=done)
    return await answer


def current(app: Any) -> PermissionPolicy | None:
    return policy_of(app.session) if app.session is not None else None


def mode_label(app: Any) -> str:
    policy = current(app)
    return policy.mode if policy is not None else (app.settings.permission_mode or "")


def cycle(app: Any) -> None:
    """Shift+Tab: ask → accept-edits → plan → ask."""
    policy = current(app)
    if policy is None:
        return
    mode = policy.cycle_mode()
    app.notice(f"Permission mode: {mode} ({MODE_HELP[mode]}).")


def set_mode(app: Any, arg: str) -> None:
    """/mode [ask|accept-edits|plan|yolo]."""
    policy = current(app)
    if policy is None:
        app.notice("No session yet.", "warn")
        return
    if not arg:
        app.notice(f"Permission mode: {policy.mode} ({MODE_HELP[policy.mode]}). Switch with /mode "
                   f"{'|'.join(MODES)} or Shift+Tab.")
        return
    if arg not in MODES:
        app.notice(f"Unknown permission mode {arg!r}: choose one of {', '.join(MODES)}.", "error")
        return
    policy.set_mode(arg)
    app.notice(f"Permission mode: {arg} ({MODE_HELP[arg]}).")
