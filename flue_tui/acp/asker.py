"""The permission policy's asker over ACP: `session/request_permission`, answered by the client.

The four ACP answers map onto flue's: allow once; allow always (the session rules the app's "allow
for this session" adds); reject once; reject always (the same rules, as deny rules for the rest of
this session). Only an option this question offered counts: a cancelled outcome, an unknown option
id, an error answer, or no answer before the prompt is cancelled refuse the call. An answer that
arrives after that, or to a request never sent, finds nothing waiting (the SDK drops it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp.schema import PermissionOption, ToolCallUpdate

from flue_tui.acp.updates import edit_diff, locations, read_old, text_content
from flue_tui.permissions.approval import Approval, ApprovalRequest
from flue_tui.permissions.rules import parse_rule

UNANSWERED = "the client did not answer"


class AcpAsker:
    def __init__(self, conn: Any, session_id: str, bridge: Any, policy: Any, cancelled: asyncio.Event) -> None:
        self.conn, self.session_id, self.bridge, self.policy = conn, session_id, bridge, policy
        self.cancelled = cancelled  # set by session/cancel: a pending question is refused at once

    def _options(self, request: ApprovalRequest) -> list[PermissionOption]:
        options = [PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once")]
        if request.session_rules:
            rules = ", ".join(request.session_rules)
            options.append(
                PermissionOption(option_id="allow_always", name=f"Always allow ({rules})", kind="allow_always")
            )
        options.append(PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"))
        if request.session_rules:
            options.append(PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always"))
        return options

    def _tool_call(self, request: ApprovalRequest) -> ToolCallUpdate:
        info = self.bridge.info(request.tool_name, request.args)
        content: list[Any] = []
        if info.kind == "edit" and info.locations:
            path = info.locations[0][0]
            content.append(edit_diff(request.tool_name, request.args, path, read_old(path), None))
        elif request.body:
            content.append(text_content(request.body))
        return ToolCallUpdate(
            tool_call_id=request.tool_use_id or "call",
            title=request.title or info.title,
            kind=info.kind,  # type: ignore[arg-type]
            status="pending",
            locations=locations(info) or None,
            raw_input=dict(request.args),
            content=content or None,
        )

    async def __call__(self, request: ApprovalRequest) -> Approval:
        await self.bridge.drain()  # the tool_call this question is about is shown first
        options = self._options(request)
        asking = asyncio.ensure_future(
            self.conn.request_permission(
                session_id=self.session_id, tool_call=self._tool_call(request), options=options
            )
        )
        stop = asyncio.ensure_future(self.cancelled.wait())
        try:
            await asyncio.wait({asking, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not asking.done():
            asking.cancel()
            return Approval("deny", note="the prompt was cancelled")
        try:
            response = asking.result()
        except Exception as exc:  # an error answer, a closed connection
            return Approval("deny", note=f"{UNANSWERED} ({exc})")
        outcome = getattr(response, "outcome", None)
        chosen = getattr(outcome, "option_id", None) if getattr(outcome, "outcome", None) == "selected" else None
        offered = {o.option_id for o in options}
        if chosen not in offered:
            return Approval("deny", note="" if chosen is None else f"{UNANSWERED} with an option it was offered")
        if chosen == "allow_once":
            return Approval("once")
        if chosen == "allow_always":
            return Approval("session")
        if chosen == "reject_always":
            self.policy.deny.extend(parse_rule(r) for r in request.session_rules)
        return Approval("deny")
