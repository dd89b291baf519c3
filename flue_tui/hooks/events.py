"""What the hooks' answers mean, per event, as Claude Code reads them.

PreToolUse: exit 2 blocks the call (its stderr is the tool's error the model reads); any other
non-zero exit, a timeout or a crash is one line for the user and the call goes on. On exit 0 a JSON
stdout may answer `hookSpecificOutput.permissionDecision` allow/deny/ask (+ `…Reason`), legacy
`decision` approve/block (+ `reason`), `updatedInput` (Claude Code's argument names, translated
back), `continue: false` + `stopReason` (the call is refused with the reason), `systemMessage`
(shown to the user). Several hooks of one call run at once; deny beats ask beats allow.

What an "allow" may and may not do is the permission policy's to decide (permissions/policy.py):
it skips an ordinary question, never a deny rule, the sandbox or an always-ask place.

PostToolUse: `decision: "block"` + `reason`, and `hookSpecificOutput.additionalContext`, are
added to the tool's result for the model; exit 2's stderr likewise.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from flue_tui.core.jsonargs import loads
from flue_tui.hooks import names
from flue_tui.hooks.config import Hook, HookSetup
from flue_tui.hooks.run import Ran, label, run_hook

TAG = "[flue:hooks]"
Choice = Literal["allow", "deny", "ask"]
_RANK = {"allow": 0, "ask": 1, "deny": 2}
BLOCKED = "Blocked by a PreToolUse hook."


@dataclass(frozen=True, slots=True)
class PreVerdict:
    decision: Choice | None = None
    reason: str | None = None  # what the model reads when denied (or the question says, for ask)
    updated: dict[str, Any] | None = None  # flue's argument names


def _json(ran: Ran, say: Callable[[str], None]) -> dict[str, Any] | None:
    text = ran.stdout.strip()
    if not text.startswith("{"):
        return None  # plain text on stdout: Claude Code shows it only in its transcript view
    try:
        data = loads(text)
    except ValueError:
        say(f"{label(ran.hook)} printed output that is not valid JSON; it was ignored")
        return None
    return data if isinstance(data, dict) else None


async def _no_answer(hook: Hook) -> Ran:
    return Ran(hook, None, failure=f"{label(hook)} has nobody to answer it")


# What one hook may add to what the model reads (context, instructions, a reason): Claude Code's
# 10,000 characters, with a note saying it was cut.
MAX_CONTEXT = 10_000


def context(text: str, hook: Hook) -> str:
    text = text.strip()
    if len(text) <= MAX_CONTEXT:
        return text
    return f"{text[:MAX_CONTEXT]}\n\n[{label(hook)} output cut: {len(text)} characters is over the {MAX_CONTEXT}-character limit]"


def _one_line(text: str, limit: int = 300) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class Hooks:
    """The hooks of one root session (and its task children), whose id their payloads carry."""

    def __init__(
        self, setup: HookSetup, cwd: str, say: Callable[[str], None] | None = None, *, session_id: str = ""
    ) -> None:
        self.setup = setup
        self.cwd = cwd
        self.session_id = session_id
        self.say: Callable[[str], None] = say or (lambda _line: None)
        # Who answers an SDK hook (one with a callback id): the control protocol's asker, set by
        # headless/claude when the SDK registers hooks. Its answer reads as a command's JSON stdout.
        self.sdk: Callable[[Hook, dict[str, Any]], Awaitable[Ran]] | None = None
        self._told: set[asyncio.Task[Any]] = set()
        # Set by the runtime: Claude Code's `permission_mode` and Stop's `last_assistant_message`.
        self.mode: Callable[[], str] | None = None
        self.last_text: Callable[[], str] | None = None
        # Stop's `background_tasks`: the running background commands, Claude Code's shape.
        self.background: Callable[[], list[dict[str, Any]]] = list

    def _one(self, hook: Hook, payload: dict[str, Any]) -> Awaitable[Ran]:
        if hook.callback is None:
            return run_hook(hook, payload, self.cwd)
        if self.sdk is None:
            return _no_answer(hook)
        return self.sdk(hook, payload)

    def _query(self, event: str, value: str) -> list[Hook]:
        """The event's hooks whose matcher matches its one value (config.MATCHED_EVENTS)."""
        return [h for h in self.setup.for_event(event) if h.matches((value,))]

    def _payload(self, event: str, **fields: Any) -> dict[str, Any]:
        # flue keeps sessions in SQLite: there is no JSONL transcript to point at.
        return {
            "session_id": self.session_id,
            "transcript_path": "",
            "cwd": self.cwd,
            **({"permission_mode": names.claude_mode(self.mode())} if self.mode is not None else {}),
            "hook_event_name": event,
            **fields,
        }

    async def _run(self, hooks: list[Hook], payload: dict[str, Any]) -> list[Ran]:
        ran = await asyncio.gather(*(self._one(h, payload) for h in hooks))
        for r in ran:
            if r.failure is not None:
                self.say(r.failure)
            elif r.code not in (0, 2):
                why = _one_line(r.stderr) or "no message"
                self.say(f"{label(r.hook)} failed with exit code {r.code}: {why}")
        return list(ran)

    def _answer(self, ran: Ran, plain: list[str]) -> dict[str, Any] | None:
        """Exit 0's JSON object (its `systemMessage` shown to the user), or None: plain text on
        stdout goes to `plain` as context (UserPromptSubmit, SessionStart, PreCompact read it so);
        broken JSON is one line and nothing more."""
        if ran.code != 0:
            return None
        text = ran.stdout.strip()
        if not text.startswith("{"):
            if text:
                plain.append(context(text, ran.hook))
            return None
        data = _json(ran, self.say)
        if data is not None and isinstance(data.get("systemMessage"), str):
            self.say(f"{label(ran.hook)}: {_one_line(data['systemMessage'])}")
        return data

    def _matching(self, event: str, tool_name: str) -> list[Hook]:
        all_names = names.names(tool_name)
        return [h for h in self.setup.for_event(event) if h.matches(all_names)]

    async def pre_tool(self, tool_name: str, args: dict[str, Any], call_id: str, cwd: str | None = None) -> PreVerdict:
        """`cwd`: where the call's relative paths start (a task child may have its own)."""
        hooks = self._matching("PreToolUse", tool_name)
        if not hooks:
            return PreVerdict()
        payload = self._payload(
            "PreToolUse",
            tool_name=names.claude_name(tool_name),
            tool_input=names.to_claude(tool_name, args, cwd or self.cwd),
            tool_use_id=call_id,
        )
        best: PreVerdict = PreVerdict()
        updated: dict[str, Any] | None = None
        for ran in await self._run(hooks, payload):
            verdict = self._pre_one(ran, tool_name)
            if verdict.updated is not None:
                updated = verdict.updated
            if verdict.decision is not None and (
                best.decision is None or _RANK[verdict.decision] > _RANK[best.decision]
            ):
                best = verdict
        return PreVerdict(best.decision, best.reason, updated if best.decision != "deny" else None)

    def _pre_one(self, ran: Ran, tool_name: str) -> PreVerdict:
        if ran.code == 2:
            return PreVerdict("deny", ran.stderr.strip() or BLOCKED)
        if ran.code != 0:
            return PreVerdict()
        data = _json(ran, self.say)
        if data is None:
            return PreVerdict()
        if isinstance(data.get("systemMessage"), str):
            self.say(f"{label(ran.hook)}: {_one_line(data['systemMessage'])}")
        if data.get("continue") is False:
            reason = data.get("stopReason")
            return PreVerdict("deny", reason if isinstance(reason, str) and reason.strip() else BLOCKED)
        specific = data.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        decision = specific.get("permissionDecision")
        reason = specific.get("permissionDecisionReason")
        if decision not in ("allow", "deny", "ask"):
            legacy = data.get("decision")
            decision = {"approve": "allow", "block": "deny"}.get(legacy) if isinstance(legacy, str) else None
            reason = data.get("reason")
        reason = reason if isinstance(reason, str) and reason.strip() else None
        raw = specific.get("updatedInput")
        updated = names.from_claude(tool_name, raw) if isinstance(raw, dict) else None
        if decision == "deny":
            return PreVerdict("deny", reason or BLOCKED)
        return PreVerdict(decision, reason, updated)  # type: ignore[arg-type]  # checked above

    async def post_tool(
        self, tool_name: str, args: dict[str, Any], call_id: str, text: str, is_error: bool
    ) -> str | None:
        """What the model reads after the tool's result, or None."""
        hooks = self._matching("PostToolUse", tool_name)
        if not hooks:
            return None
        payload = self._payload(
            "PostToolUse",
            tool_name=names.claude_name(tool_name),
            tool_input=names.to_claude(tool_name, args, self.cwd),
            tool_response=names.tool_response(tool_name, args, text, is_error, self.cwd),
            tool_use_id=call_id,
        )
        notes: list[str] = []
        for ran in await self._run(hooks, payload):
            if ran.code == 2 and ran.stderr.strip():
                notes.append(context(ran.stderr, ran.hook))
                continue
            data = _json(ran, self.say) if ran.code == 0 else None
            if data is None:
                continue
            if isinstance(data.get("systemMessage"), str):
                self.say(f"{label(ran.hook)}: {_one_line(data['systemMessage'])}")
            if data.get("decision") == "block" and isinstance(data.get("reason"), str):
                notes.append(context(data["reason"], ran.hook))
            specific = data.get("hookSpecificOutput")
            extra = specific.get("additionalContext") if isinstance(specific, dict) else None
            if isinstance(extra, str) and extra.strip():
                notes.append(context(extra, ran.hook))
        return "\n".join(notes) if notes else None

    async def user_prompt(self, prompt: str) -> tuple[str | None, str | None]:
        """UserPromptSubmit: (why the prompt is blocked, or None; context added to it, or None).
        Exit 2 or `decision: "block"` blocks (the user reads why; the prompt never reaches the
        model); exit 0's plain stdout or `additionalContext` is added to the prompt."""
        hooks = list(self.setup.for_event("UserPromptSubmit"))
        if not hooks:
            return None, None
        blocked: str | None = None
        notes: list[str] = []
        for ran in await self._run(hooks, self._payload("UserPromptSubmit", prompt=prompt)):
            if ran.code == 2:
                blocked = ran.stderr.strip() or "Blocked by a UserPromptSubmit hook."
                continue
            data = self._answer(ran, notes)
            if data is None:
                continue
            why = data.get("stopReason") if data.get("continue") is False else None
            if why is None and data.get("decision") == "block":
                why = data.get("reason")
            if why is not None or data.get("continue") is False or data.get("decision") == "block":
                blocked = why if isinstance(why, str) and why.strip() else "Blocked by a UserPromptSubmit hook."
            specific = data.get("hookSpecificOutput")
            extra = specific.get("additionalContext") if isinstance(specific, dict) else None
            if isinstance(extra, str) and extra.strip():
                notes.append(context(extra, ran.hook))
        return blocked, "\n".join(notes) if notes else None

    async def stop(self, active: bool) -> str | None:
        """Stop: the reason to keep going (the model reads it as the next user message), or None.
        `active` is Claude Code's `stop_hook_active`: this turn already continued for a Stop hook."""
        hooks = list(self.setup.for_event("Stop"))
        if not hooks:
            return None
        reasons: list[str] = []
        more: dict[str, Any] = {"last_assistant_message": self.last_text()} if self.last_text is not None else {}
        more.update(background_tasks=self.background(), session_crons=[])  # flue schedules no wakeups
        for ran in await self._run(hooks, self._payload("Stop", stop_hook_active=active, **more)):
            if ran.code == 2 and ran.stderr.strip():
                reasons.append(ran.stderr.strip())
                continue
            data = _json(ran, self.say) if ran.code == 0 else None
            if data is None or data.get("continue") is False:
                continue
            if data.get("decision") == "block" and isinstance(data.get("reason"), str) and data["reason"].strip():
                reasons.append(data["reason"].strip())
        return "\n".join(reasons) if reasons else None

    def notify(self, kind: str, message: str) -> None:
        """Notification, told in the background: a slow hook never holds the question it announces."""
        hooks = self._query("Notification", kind)
        if not hooks:
            return
        payload = self._payload("Notification", message=message, title="flue", notification_type=kind)
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to tell it from
            task = asyncio.get_running_loop().create_task(self._run(hooks, payload))
            self._told.add(task)
            task.add_done_callback(self._told.discard)

    def permission_prompt(self, tool_name: str) -> None:
        self.notify("permission_prompt", f"flue needs your permission to use {names.claude_name(tool_name)}")
