"""The session's own events, as Claude Code runs them (its 2.1 contract, read from the CLI bundled
with claude-agent-sdk):

SessionStart (`source`: startup, resume, clear, compact; matched by its matcher): exit 0's plain
stdout and `hookSpecificOutput.additionalContext` are added to the context the model reads with the
next prompt; exit 2 and other failures are a line for the user only. SessionEnd (`reason`: clear,
resume, prompt_input_exit, other) cannot block anything; it runs while flue closes the session,
bounded by its timeout (1.5 s unless set). PreCompact (`trigger` manual/auto,
`custom_instructions`): exit 0's stdout joins the summary's instructions; exit 2 or
`decision: "block"` stops that compaction (Claude Code 2.1.105 on). Notification
(`notification_type` permission_prompt / idle_prompt, `message`) is told, never waited for.
SubagentStop (`agent_type`, `agent_id`, `stop_hook_active`, `last_assistant_message`): exit 2 or
`decision: "block"` sends the task child on with the reason, as Stop does for the root session.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from flue_tui.core.events import Operation, OperationStart
from flue_tui.hooks import names
from flue_tui.hooks.config import Hook, HookSetup
from flue_tui.hooks.events import Hooks, _json, _one_line, context
from flue_tui.hooks.run import Ran, label

T = TypeVar("T")
IDLE_MESSAGE = "flue is waiting for your input"


def blocking(make: Callable[[], Awaitable[T]]) -> T:
    """Run hooks from code that may not await (a session's start in a worker thread, its close at
    exit, perhaps under a running loop): in a thread of its own with its own event loop."""
    out: list[Any] = []

    def work() -> None:
        async def go() -> None:
            out.append(await make())

        try:
            asyncio.run(go())
        except Exception as exc:  # a hook is never the reason a start or an exit fails
            out.append(exc)

    thread = threading.Thread(target=work, name="flue-hooks", daemon=True)
    thread.start()
    thread.join()
    result = out[0] if out else None
    if isinstance(result, Exception):
        raise result
    return result  # type: ignore[return-value]  # work() appended the awaited value


class SessionHooks(Hooks):
    """A root session's hooks: the tool and prompt hooks of events.py, and the session's own."""

    idle_after = 60.0  # seconds at the prompt before idle_prompt, Claude Code's threshold

    def __init__(self, setup: HookSetup, cwd: str, say: Callable[[str], None] | None = None) -> None:
        super().__init__(setup, cwd, say)
        self.pending: list[str] = []  # SessionStart's context, sent with the next prompt
        self._idle: asyncio.TimerHandle | None = None

    def watch_idle(self, session: Any) -> None:
        """Interactive front ends: Notification idle_prompt once a prompt's work has ended and the
        user has typed nothing for `idle_after` seconds (the next operation cancels it)."""
        if not self._query("Notification", "idle_prompt"):
            return

        def on_event(event: Any) -> None:
            if event.task_id is not None or event.session != session.id:
                return
            if isinstance(event, OperationStart) and self._idle is not None:
                self._idle.cancel()
                self._idle = None
            elif isinstance(event, Operation) and event.operation_kind == "prompt":
                loop = asyncio.get_running_loop()
                self._idle = loop.call_later(self.idle_after, self.notify, "idle_prompt", IDLE_MESSAGE)

        session.subscribe(on_event)

    async def _quietly(self, hooks: list[Hook], payload: dict[str, Any]) -> tuple[list[Ran], list[str]]:
        """Run hooks whose lines are returned, not said (a session starting or ending has no one
        listening yet, or no longer): failures, and exit 2's stderr, shown to the user only for
        these events as in Claude Code."""
        lines: list[str] = []
        say, self.say = self.say, lines.append
        try:
            ran = await self._run(hooks, payload)
        finally:
            self.say = say
        lines += [f"{label(r.hook)}: {_one_line(r.stderr) or 'exit code 2'}" for r in ran if r.code == 2]
        return ran, lines

    async def session_start(self, source: str, model: str = "") -> list[str]:
        """Run SessionStart; its context waits in `pending`. Returns the lines for the user."""
        hooks = self._query("SessionStart", source)
        if not hooks:
            return []
        ran, lines = await self._quietly(hooks, self._payload("SessionStart", source=source, model=model))
        say, self.say = self.say, lines.append
        try:
            for r in ran:
                data = self._answer(r, self.pending)
                specific = data.get("hookSpecificOutput") if data is not None else None
                extra = specific.get("additionalContext") if isinstance(specific, dict) else None
                if isinstance(extra, str) and extra.strip():
                    self.pending.append(context(extra, r.hook))
        finally:
            self.say = say
        return lines

    async def user_prompt(self, prompt: str) -> tuple[str | None, str | None]:
        blocked, extra = await super().user_prompt(prompt)
        if blocked is None and self.pending:
            extra = "\n\n".join([*self.pending, *([extra] if extra else [])])
            self.pending.clear()
        return blocked, extra

    async def session_end(self, reason: str) -> list[str]:
        if self._idle is not None:
            self._idle.cancel()
        hooks = self._query("SessionEnd", reason)
        if not hooks:
            return []
        _, lines = await self._quietly(hooks, self._payload("SessionEnd", reason=reason))
        return lines

    async def pre_compact(self, trigger: str, instructions: str | None) -> tuple[str | None, str | None]:
        """(why the compaction is blocked, or None; the instructions the summary follows, or None)."""
        hooks = self._query("PreCompact", trigger)
        if not hooks:
            return None, instructions
        payload = self._payload("PreCompact", trigger=trigger, custom_instructions=instructions or "")
        blocked: list[str] = []
        added: list[str] = []
        for r in await self._run(hooks, payload):
            if r.code == 2:
                blocked.append(_one_line(r.stderr) or label(r.hook))
                continue
            data = self._answer(r, added)
            if data is None:
                continue
            if data.get("decision") == "block" or data.get("continue") is False:
                why = data.get("reason") or data.get("stopReason")
                blocked.append(_one_line(why) if isinstance(why, str) and why.strip() else label(r.hook))
        joined = "\n\n".join([*([instructions] if instructions else []), *added]) or None
        return ("; ".join(blocked) if blocked else None), joined

    async def compacted(self) -> None:
        """After a compaction: SessionStart with source "compact" (its context goes with the next prompt)."""
        for line in await self.session_start("compact"):
            self.say(line)

    def for_child(self, agent_type: str, agent_id: str) -> ChildHooks:
        return ChildHooks(self, agent_type, agent_id)


class ChildHooks:
    """A task child's prompt hooks: no UserPromptSubmit (the parent's model wrote the prompt), and
    SubagentStop where the root session has Stop."""

    def __init__(self, parent: SessionHooks, agent_type: str, agent_id: str) -> None:
        self.parent = parent
        self.agent_type = agent_type
        self.agent_id = agent_id
        self.last_text: Callable[[], str] = lambda: ""

    async def user_prompt(self, prompt: str) -> tuple[str | None, str | None]:
        return None, None

    async def pre_compact(self, trigger: str, instructions: str | None) -> tuple[str | None, str | None]:
        return await self.parent.pre_compact(trigger, instructions)

    async def compacted(self) -> None:
        return None  # a child's compaction starts no session

    async def stop(self, active: bool) -> str | None:
        kinds = names.agent_names(self.agent_type)
        hooks = [h for h in self.parent.setup.for_event("SubagentStop") if h.matches(kinds)]
        if not hooks:
            return None
        payload = self.parent._payload(
            "SubagentStop",
            stop_hook_active=active,
            agent_id=self.agent_id,
            agent_transcript_path="",
            agent_type=kinds[0],
            last_assistant_message=self.last_text(),
        )
        reasons: list[str] = []
        for r in await self.parent._run(hooks, payload):
            if r.code == 2 and r.stderr.strip():
                reasons.append(r.stderr.strip())
                continue
            data = _json(r, self.parent.say) if r.code == 0 else None
            if data is None or data.get("continue") is False:
                continue
            why = data.get("reason")
            if data.get("decision") == "block" and isinstance(why, str) and why.strip():
                reasons.append(why.strip())
        return "\n".join(reasons) if reasons else None
