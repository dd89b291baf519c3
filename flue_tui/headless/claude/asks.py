"""What flue asks the Agent SDK's process over the control protocol, and how its answers are read:
`can_use_tool` (the permission policy's asker) and `hook_callback` (a hook the SDK registered).

The SDK's process is a program flue does not control: an answer may name an id flue never sent
(ignored), come twice (the first counts), be huge (stdin drops a line over its limit, so the
question simply goes unanswered) or never come. A permission question waits, as Claude Code waits
for its user; a hook waits its timeout (the matcher's, else 60 s), then the request is cancelled
(`control_cancel_request`) and the hook counts as failed: one line, and the call goes on unless
the SDK set `on_failure="block"`.

The SDK's callbacks were written for Claude Code, so they see its tool names and input shapes
(`Write` with `file_path`, `Bash` with `command` in milliseconds of timeout) and answer in them:
hooks/names.py translates both ways. An `updatedInput` is handed to the policy, which checks it
like the model's own arguments (schema, workspace guard, deny rules) before anything runs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from flue_tui.headless.claude.stream import Write
from flue_tui.hooks import names
from flue_tui.hooks.config import Hook
from flue_tui.hooks.run import LIMIT, Ran, label

# Events where Claude Code lets a hook stop what is about to happen; elsewhere a failed hook that
# was set to block is only reported (a Stop hook that "blocks" would keep the turn going forever).
_BLOCKING = ("PreToolUse", "UserPromptSubmit")


def _short(text: Any, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def claude_denial(denial: Any, cwd: str) -> dict[str, Any]:
    """A `permission_denials` entry in Claude Code's tool name and input shape (absolute paths)."""
    entry = denial.to_dict()
    tool = entry["tool_name"]
    return {
        **entry,
        "tool_name": names.claude_name(tool),
        "tool_input": names.to_claude(tool, entry["tool_input"], cwd),
    }


class Asks:
    """The control requests flue has sent and not yet had answered, by request id."""

    def __init__(self, write: Write, cwd: str) -> None:
        self.write = write
        self.cwd = cwd  # Claude Code's file_path is absolute: relative paths are shown from here
        self._ids = itertools.count(1)
        self._open: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def request(self, request: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send one request; its response object (`subtype` success or error). Not answered within
        `timeout` seconds: the request is cancelled and an error response stands in for it."""
        rid = f"flue_req_{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._open[rid] = future
        self.write({"type": "control_request", "request_id": rid, "request": request})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self._drop(rid)
            return {"subtype": "error", "error": f"no answer within {timeout:g}s"}
        except asyncio.CancelledError:
            self._drop(rid)  # the turn was aborted: the SDK need not answer any more
            raise

    def answer(self, response: Any) -> None:
        """A `control_response` from the SDK: settles the request it names, if flue is waiting."""
        rid = response.get("request_id") if isinstance(response, dict) else None
        future = self._open.pop(rid, None) if isinstance(rid, str) else None
        if future is not None and not future.done() and isinstance(response, dict):
            future.set_result(response)

    def cancel_all(self, why: str) -> None:
        for rid, future in list(self._open.items()):
            if not future.done():
                future.set_result({"subtype": "error", "error": why})
                self.write({"type": "control_cancel_request", "request_id": rid})
        self._open.clear()

    def _drop(self, rid: str) -> None:
        if self._open.pop(rid, None) is not None:
            self.write({"type": "control_cancel_request", "request_id": rid})

    # -- can_use_tool ------------------------------------------------------------------------------
    async def can_use_tool(self, request: Any, abort: Any) -> Any:
        """The policy's asker: the SDK's `can_use_tool` callback, in Claude Code's names."""
        from flue_tui.permissions.policy import Approval

        tool = request.tool_name
        shown = names.to_claude(tool, dict(request.args), self.cwd)
        response = await self.request(
            {
                "subtype": "can_use_tool",
                "tool_name": names.claude_name(tool),
                "input": shown,
                "permission_suggestions": None,
                "blocked_path": None,
                "tool_use_id": request.tool_use_id,
                "title": request.title,
                "description": f"{names.claude_name(tool)} needs approval in {request.mode} mode",
            }
        )
        if response.get("subtype") != "success":
            return Approval(
                "deny", note=f"the permission callback failed: {_short(response.get('error', 'no answer'))}"
            )
        raw = response.get("response")
        data: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if data.get("behavior") == "allow":
            updated = data.get("updatedInput")
            # The SDK sends the input it was shown back when its callback changed nothing.
            back = names.from_claude(tool, updated) if isinstance(updated, dict) and updated != shown else None
            changed = back is not None and back != request.args
            return Approval("once", updated_input=back if changed else None)
        if data.get("interrupt"):
            abort()
        message = data.get("message")
        return Approval("deny", note=message if isinstance(message, str) else "")

    # -- mcp_message -------------------------------------------------------------------------------
    async def mcp_message(self, server: str, message: dict[str, Any]) -> Any:
        """mcp/sdkserver.Send: one JSON-RPC message to an SDK server; its `mcp_response`. No
        timeout here: the MCP connection bounds the start and each call, and cancels this."""
        response = await self.request({"subtype": "mcp_message", "server_name": server, "message": message})
        if response.get("subtype") != "success":
            raise ValueError(f"the Agent SDK failed: {_short(response.get('error') or 'no message')}")
        data = response.get("response")
        return data.get("mcp_response") if isinstance(data, dict) else None

    # -- hook_callback -----------------------------------------------------------------------------
    async def hook(self, hook: Hook, payload: dict[str, Any]) -> Ran:
        """Hooks.sdk: one SDK hook, its answer read as a command hook's JSON stdout."""
        response = await self.request(
            {
                "subtype": "hook_callback",
                "callback_id": hook.callback,
                "input": payload,
                "tool_use_id": payload.get("tool_use_id"),
            },
            hook.timeout,
        )
        problem: str | None = None
        text = ""
        if response.get("subtype") != "success":
            problem = f"failed: {_short(response.get('error') or 'no message')}"
        elif not isinstance(data := response.get("response"), dict):
            problem = "answered with something that is not a JSON object"
        elif len(text := json.dumps(data, ensure_ascii=False)) > LIMIT:
            problem = f"answered with more than {LIMIT // 1024} KiB; the answer was ignored"
        if problem is None:
            return Ran(hook, 0, stdout=text)
        line = f"{label(hook)} {problem}"
        if hook.blocks_on_failure and hook.event in _BLOCKING:
            return Ran(hook, 2, stderr=f"{line} (it is set to block when it fails)")
        return Ran(hook, None, failure=line)
