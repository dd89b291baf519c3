"""The app's side of the permission policy: it answers the policy's questions with the approval
dialog, switches modes with Shift+Tab (/mode is in ui/commands.py) and shows the mode in the status bar.

The policy itself (flue_tui.permissions) knows nothing of Textual; this module plugs the dialog in
as its `asker` whenever the app attaches a session.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Protocol

from flue_tui.ui.commands import MODE_HELP

if TYPE_CHECKING:  # the policy is imported once a session exists, after the first frame
    from flue_tui.config.settings import Settings
    from flue_tui.permissions.policy import Approval, ApprovalRequest, PermissionPolicy


class Host(Protocol):
    """What of the app the approval side uses (the app, without importing it: no cycle)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def handle(self) -> Any: ...  # the SessionHandle (runtime/handle.py)
    def request_flush(self) -> None: ...
    def refresh_status(self) -> None: ...


def install(app: Host, session: Any) -> None:
    """Make `app` the one who answers `session`'s permission questions."""
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    if policy is None:
        return

    async def ask(request: ApprovalRequest) -> Approval:
        router = getattr(app, "router", None)
        if router is not None:  # the status bar says what the agent is really doing: waiting for you
            router.set_activity("waiting for your approval")
            app.request_flush()
        who = router.who_asks(request.tool_use_id) if router is not None else None
        with router.approval(request.tool_use_id) if router is not None else contextlib.nullcontext():
            answer = await ask_with_dialog(app, request, who)
        if router is not None:
            router.set_activity(f"running {request.tool_name}" if answer.choice != "deny" else "working")
            app.request_flush()
        return answer

    policy.asker = ask

    def changed(mode: str) -> None:
        app.handle.keep_mode(mode)  # so /new and /resume keep the mode the user chose
        app.refresh_status()

    policy.listeners.append(changed)


async def ask_with_dialog(app: Any, request: ApprovalRequest, asker: str | None = None) -> Approval:
    """Push the dialog and wait for its answer (the agent's tool call waits meanwhile)."""
    from flue_tui.permissions.policy import Approval
    from flue_tui.tui.screens.approval import ApprovalScreen

    answer: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()

    def done(result: Approval | None) -> None:
        if not answer.done():
            answer.set_result(result if isinstance(result, Approval) else Approval("deny"))

    app.push_screen(ApprovalScreen(request, asker), callback=done)
    return await answer


def current(app: Any) -> PermissionPolicy | None:
    if app.session is None:
        return None
    from flue_tui.permissions.policy import policy_of

    return policy_of(app.session)


def mode_label(app: Any) -> str:
    policy = current(app)
    # Before the session exists: the mode it will start in, once read (tui/session_ctl.py).
    return policy.mode if policy is not None else (app.settings.permission_mode or app.ctl.mode_hint)


def cycle(app: Any) -> None:
    """Shift+Tab: ask → accept-edits → plan → ask."""
    policy = current(app)
    if policy is None:
        return
    mode = policy.cycle_mode()
    app.notice(f"Permission mode: {mode} ({MODE_HELP[mode]}).")
