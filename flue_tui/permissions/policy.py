"""The permission policy: one object consulted before every tool call (Session.before_tool).

It knows nothing of any UI. A front end that can ask a person sets `asker`; without one (print
mode) every call that would ask is refused at once and logged, so a run never waits.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from flue_tui.core.decision import ALLOW, Decision, Verdict
from flue_tui.core.traits import ToolTraits, traits_of
from flue_tui.permissions.approval import Approval as Approval  # re-exported: askers import it from here
from flue_tui.permissions.approval import ApprovalRequest, Asker
from flue_tui.permissions.rules import (
    FILE_PATH,
    Rule,
    matches,
    parse_rule,
    redirect_targets,
    session_rules_for,
    unseen_by_deny,
)

# What judges a call (the shell reader, the workspace's scope, git's configuration, a question's
# preview: ~7 ms of modules) is imported by the methods that judge, at the session's first tool
# call: a policy is built at every session's start, before its first token.

MODES = ("ask", "accept-edits", "plan", "yolo")
# Tools whose calls are bash commands under another name: the same rules, guard and questions.
AS_BASH = {"bash_background": "bash"}
# Shift+Tab cycles these; yolo is only ever chosen explicitly (--permission-mode, /mode yolo).
CYCLE = ("ask", "accept-edits", "plan")

# What each mode does per tool kind when no rule decides. Only kinds that change things (edit,
# execute) are gated; read, search, delegate (children answer to the same policy) and other (skills,
# finish/give_up) always run.
_DEFAULTS: dict[str, dict[str, Verdict]] = {
    "ask": {"edit": "ask", "execute": "ask"},
    "accept-edits": {"edit": "allow", "execute": "ask"},
    "plan": {"edit": "deny", "execute": "deny"},
    "yolo": {},
}

PLAN_TEXT = (
    "Permission denied: plan mode is read-only, so {tool} cannot run. Describe the change or the "
    "command you would make instead."
)
RULE_TEXT = 'Permission denied: {tool} is blocked by the rule "{rule}".'
UNCLEAR_TEXT = (
    'Permission denied: {tool} is blocked by the rule "{rule}": flue cannot tell what this command '
    "runs ({why}), so it cannot check the rule. Name each program plainly."
)
# The model reads this and should tell the user what to change: the flags that allow the call.
NO_ASK_TEXT = (
    "Permission denied: {tool} needs the user's approval in {mode} mode, and print mode (flue -p) "
    "cannot ask for it. Tell the user; to allow it they can run flue again with {grant}."
)
GRANT_TEXT = '--allowedTools "{rules}" or --permission-mode yolo'
YOLO_GRANT = "--permission-mode yolo"


def no_ask_text(tool: str, mode: str, rules: Iterable[str] = ()) -> str:
    """The refusal of a call that would ask when no one can answer, naming the rules that allow it."""
    shown = ",".join(rules)
    return NO_ASK_TEXT.format(tool=tool, mode=mode, grant=GRANT_TEXT.format(rules=shown) if shown else YOLO_GRANT)


# Past every mode but yolo and every allow rule (scope.always_asks says why: .git, flue's own files).
ALWAYS_TEXT = (
    "Permission denied: {tool} would change {path}, {why}; flue asks before every such change whatever "
    "the mode and rules say, and no one can approve it in this run (print mode never asks)."
)
REPO_GIT_TEXT = (
    "Permission denied: bash would run git in a repository that can make git run programs ({why}); "
    "a rule allows the command, not what the repository's own configuration runs, so flue asks, and no "
    "one can approve it in this run (print mode never asks)."
)
USER_TEXT = "Permission denied: the user refused this {tool} call."
# An `ask` rule (Claude Code's settings): a question in every mode, so a refusal where no one answers.
ASK_RULE_TEXT = (
    'Permission denied: {tool} needs approval by the rule "{rule}", and no one can approve it in this '
    "run (print mode never asks)."
)


class HookVerdict(Protocol):
    """A PreToolUse hook's answer (flue_tui/hooks/events.PreVerdict)."""

    @property
    def decision(self) -> Verdict | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def updated(self) -> dict[str, Any] | None: ...


class PreToolHooks(Protocol):
    """The user's PreToolUse hooks (flue_tui/hooks), run before the rules are consulted."""

    async def pre_tool(
        self, tool_name: str, args: dict[str, Any], call_id: str, cwd: str | None = None
    ) -> HookVerdict: ...


class Guard(Protocol):
    """Hard checks that apply in every mode (the workspace sandbox); a text refuses the call."""

    def check(self, tool_name: str, args: dict[str, Any], tool: object) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Denial:
    """A call the policy refused, as Claude Code reports it in `permission_denials`. `unasked`: it
    would have asked and no one could answer (not a deny rule, plan mode, the guard or a hook);
    `rules` then says what --allowedTools would allow it (none: only yolo does)."""

    tool_name: str
    tool_use_id: str
    tool_input: dict[str, Any]
    reason: str
    unasked: bool = False
    rules: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Claude Code's `permission_denials` entry shape."""
        return {"tool_name": self.tool_name, "tool_use_id": self.tool_use_id, "tool_input": self.tool_input}


@dataclass(slots=True)
class PermissionPolicy:
    """The permission mode, rules and guard every tool call is checked against."""

    mode: str = "yolo"
    allow: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)  # always a question, whatever the mode (after deny)
    root: str = "."
    add_dirs: tuple[str, ...] = ()  # --add-dir: more roots accept-edits covers, beside `root`
    guard: Guard | None = None
    asker: Asker | None = None
    session_allow: list[Rule] = field(default_factory=list)
    denials: list[Denial] = field(default_factory=list)
    listeners: list[Callable[[str], None]] = field(default_factory=list)
    safe_commands: bool = True  # read-only bash runs unasked in ask/accept-edits ([permissions] safe_commands)
    hooks: PreToolHooks | None = None
    _asking: asyncio.Lock | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown permission mode {self.mode!r} (choose from {', '.join(MODES)})")

    # -- modes ------------------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown permission mode {mode!r} (choose from {', '.join(MODES)})")
        self.mode = mode
        for fn in list(self.listeners):
            fn(mode)

    def cycle_mode(self) -> str:
        """Shift+Tab: ask → accept-edits → plan → ask (from yolo, back to ask)."""
        nxt = CYCLE[(CYCLE.index(self.mode) + 1) % len(CYCLE)] if self.mode in CYCLE else "ask"
        self.set_mode(nxt)
        return nxt

    def held(self, mode: str) -> PermissionPolicy:
        """This policy held in `mode` (a plan-mode task's child, which has no worktree of its own:
        a later /mode must not let it write in the parent's checkout). The same rules, session
        answers, denials, guard, hooks, asker and question lock; only set_mode here moves it."""
        if self._asking is None:
            self._asking = asyncio.Lock()  # shared: still one question at a time
        return dataclasses.replace(self, mode=mode, listeners=[])

    def allow_for_session(self, rules: Iterable[str]) -> None:
        self.session_allow.extend(parse_rule(r) for r in rules)

    # -- deciding ---------------------------------------------------------------------------------
    def decide(self, tool_name: str, args: dict[str, Any], tool: Any) -> Decision:
        """Rules and mode only (no guard, no asking): deny rules, plan, allow rules, session, mode."""
        from flue_tui.permissions.scope import always_asks, changed_by_command

        base = getattr(getattr(tool, "sandbox", None), "cwd", None) or self.root
        traits = traits_of(tool)
        kind = traits.kind
        writes = redirect_targets(traits, args)
        denied = self._denied(tool_name, traits, args, base, writes)
        if denied is not None:
            return Decision("deny", denied)
        default = _DEFAULTS[self.mode].get(kind, "allow")
        command = traits.subject_of(args) if traits.shell else None
        # Judged once, for ask, accept-edits and plan alike (yolo runs every command anyway).
        reads = default != "allow" and kind == "execute" and self._only_reads(command, base)
        # plan mode is read-only whatever the allow rules say; a command that only reads goes on,
        # as in ask mode, to ask rules and then runs unasked (`git diff`)
        if default == "deny" and not reads:
            return Decision("deny", PLAN_TEXT.format(tool=tool_name))
        asked = matches(self.ask, tool_name, args, traits=traits, base=base, root=self.root, deny=True)
        if asked is None and (unseen := unseen_by_deny(self.ask, tool_name, traits, args)) is not None:
            asked = unseen[0]  # an unclear command an ask rule cannot read: asked, not run unasked
        if asked is not None:  # deny, then ask, then allow, as Claude Code orders them
            return Decision("ask", ASK_RULE_TEXT.format(tool=tool_name, rule=asked.text))
        # A change inside .git can make the next allowed `git status` run a command (core.fsmonitor,
        # hooks, filters), one to flue's own config or trust loosens the next run: always a
        # question, past accept-edits and allow rules; only yolo skips it.
        paths = traits.path_values(args) if kind == "edit" else []
        changed = dict.fromkeys([*paths, *writes, *(changed_by_command(command) if command is not None else ())])
        if self.mode != "yolo":
            for target in changed:
                why = always_asks(target, base)
                if why is not None:
                    return Decision("ask", ALWAYS_TEXT.format(tool=tool_name, path=target, why=why))
        # accept-edits (and a bare write rule) covers the workspace roots only: elsewhere asks.
        outside = self.mode != "yolo" and any(not self._within(path, base) for path in paths)
        if default == "allow" and not outside:
            unseen = unseen_by_deny(self.deny, tool_name, traits, args)
            if unseen is not None:  # it would run unasked past a deny rule that cannot read it
                return Decision("deny", UNCLEAR_TEXT.format(tool=tool_name, rule=unseen[0].text, why=unseen[1]))
            return Decision("allow")
        if reads and not outside:
            return Decision("allow")  # only reads (ls, git status …): asking would only slow the user
        for rules in (self.allow, self.session_allow):
            named = [r for r in rules if r.pattern] if outside else rules  # only a rule naming the path
            if matches(named, tool_name, args, traits=traits, base=base, root=self.root, deny=False) is not None:
                # A shell redirection writes a file: allowed only where a write would be.
                if all(self._may_write(path, base) for path in writes):
                    why = self._repository_programs(command, base)
                    return Decision("allow") if why is None else Decision("ask", REPO_GIT_TEXT.format(why=why))
        return Decision("ask")

    def _only_reads(self, command: object, base: str) -> bool:
        """The one read-only decision (readonly.py): the bash commands ask, accept-edits and plan
        mode run unasked; `[permissions] safe_commands = false` turns it off in all three."""
        if not self.safe_commands or not isinstance(command, str):
            return False
        from flue_tui.permissions.readonly import read_only

        return read_only(command, base, (self.root, *self.add_dirs))

    @staticmethod
    def _repository_programs(command: object, base: str) -> str | None:
        """A rule vouches for a git command, not for the repository it runs in (permissions/git.py)."""
        if not isinstance(command, str):
            return None
        from flue_tui.permissions.git import git_cwds, repository_programs
        from flue_tui.permissions.shell import read_command

        for cwd, hooks_run in git_cwds(read_command(command).commands, base):
            why = repository_programs(cwd, hooks_run)
            if why is not None:
                return why
        return None

    def _denied(
        self, tool_name: str, traits: ToolTraits, args: dict[str, Any], base: str, writes: tuple[str, ...]
    ) -> str | None:
        """The refusal when a deny rule matches the call (or a file its redirections write)."""
        hit = matches(self.deny, tool_name, args, traits=traits, base=base, root=self.root, deny=True) or next(
            (
                r
                for path in writes
                for tool in ("write", "edit")
                if (
                    r := matches(
                        self.deny, tool, {"path": path}, traits=FILE_PATH, base=base, root=self.root, deny=True
                    )
                )
            ),
            None,
        )
        return RULE_TEXT.format(tool=tool_name, rule=hit.text) if hit is not None else None

    def refuse_own(self, tool_name: str, args: dict[str, Any], tool: Any) -> str | None:
        """The user's own `!command`: nobody is asked and no mode (plan included) holds it back —
        the user typed it — but the guard and a matching deny rule still refuse it."""
        refusal = self.guard.check(tool_name, args, tool) if self.guard is not None else None
        if refusal is None:
            base = getattr(getattr(tool, "sandbox", None), "cwd", None) or self.root
            traits = traits_of(tool)
            refusal = self._denied(tool_name, traits, args, base, redirect_targets(traits, args))
        return refusal

    def _within(self, path: str, base: str) -> bool:
        from flue_tui.permissions.scope import within

        return within(path, base, (self.root, *self.add_dirs))

    def _may_write(self, path: str, base: str) -> bool:
        """A redirection's file: what accept-edits or a write rule allows (outside the roots, only
        a rule that names the path)."""
        if self.mode == "yolo":
            return True
        inside = self._within(path, base)
        if inside and _DEFAULTS[self.mode].get("edit", "allow") == "allow":
            return True
        return any(
            matches(
                rules if inside else [r for r in rules if r.pattern],
                "write",
                {"path": path},
                traits=FILE_PATH,
                base=base,
                root=self.root,
                deny=False,
            )
            is not None
            for rules in (self.allow, self.session_allow)
        )

    async def __call__(self, tool_name: str, args: dict[str, Any], tool: Any, call_id: str = "") -> Decision:
        """Session.before_tool: allow (maybe with a rewritten input, a new dict) or deny with the
        refusal the model reads. `args` is never changed."""
        name = AS_BASH.get(tool_name, tool_name)  # a background command is judged, and asked, as bash
        refusal = self.guard.check(name, args, tool) if self.guard is not None else None
        decision = Decision("deny", refusal) if refusal is not None else None
        hint: Verdict | None = None
        judged, rewritten = args, None
        if decision is None and self.hooks is not None:
            # The user's PreToolUse hooks first, as in Claude Code. A hook's deny refuses; its
            # updatedInput is checked like the model's own arguments; its allow skips only an
            # ordinary question (`_consult`), never the guard, a deny rule or an always-ask place.
            where = getattr(getattr(tool, "sandbox", None), "cwd", None)  # a task child's own cwd
            verdict = await self.hooks.pre_tool(
                tool_name, dict(args), call_id, where if isinstance(where, str) else None
            )
            hint = verdict.decision
            if hint == "deny":
                decision = Decision("deny", verdict.reason or "Blocked by a PreToolUse hook.")
            elif verdict.updated is not None:
                replaced = self._replace(name, tool, {**args, **verdict.updated})
                if replaced.verdict == "deny":
                    decision = replaced
                else:
                    judged = rewritten = replaced.args or judged
        unasked: tuple[str, ...] | None = None
        if decision is None:
            decision, unasked = await self._consult(name, judged, tool, call_id, hint)
            if decision.verdict == "allow" and decision.args is None and rewritten is not None:
                decision = Decision("allow", args=rewritten)
        if decision.verdict != "allow":
            decision = Decision("deny", decision.reason or no_ask_text(tool_name, self.mode))
            denial = Denial(tool_name, call_id, dict(args), decision.reason or "", unasked is not None, unasked or ())
            self.denials.append(denial)
        return decision

    async def _consult(
        self, tool_name: str, args: dict[str, Any], tool: Any, call_id: str, hint: Verdict | None = None
    ) -> tuple[Decision, tuple[str, ...] | None]:
        """The decision, and for a question no one can answer the rules that would allow the call."""
        decision = self.decide(tool_name, args, tool)
        if hint == "allow" and decision.verdict == "ask" and decision.reason is None:
            return ALLOW, None  # an ordinary question a hook answered; an always-ask one (reason set) still asks
        forced = hint == "ask" and decision.verdict == "allow"  # a hook asks for a question
        if decision.verdict != "ask" and not forced:
            return decision, None
        if self.asker is None:
            # A rule allows only an ordinary question; an always-ask place (reason set) yields to yolo alone.
            rules = () if decision.reason else tuple(session_rules_for(tool_name, traits_of(tool), args))
            return Decision("deny", decision.reason or no_ask_text(tool_name, self.mode, rules)), rules
        return await self._ask(self.asker, tool_name, args, tool, call_id, forced), None

    async def _ask(
        self, asker: Asker, tool_name: str, args: dict[str, Any], tool: Any, call_id: str, forced: bool
    ) -> Decision:
        """Put the question to the asker (one at a time) and turn its answer into a decision."""
        if self._asking is None:
            self._asking = asyncio.Lock()
        async with self._asking:  # one question at a time, even with parallel sub-agents
            decision = self.decide(tool_name, args, tool)  # an earlier answer may have settled it
            if decision.verdict != "ask" and not (forced and decision.verdict == "allow"):
                return decision
            from flue_tui.permissions.asking import preview

            traits = traits_of(tool)
            title, body, body_kind = await preview(tool_name, args, tool)
            request = ApprovalRequest(
                tool_name,
                call_id,
                dict(args),
                traits.kind,
                self.mode,
                title,
                body,
                body_kind,
                tuple(session_rules_for(tool_name, traits, args)),
            )
            # Notification hooks, told as the question is put (optional: not every hooks object has them).
            tell = getattr(self.hooks, "permission_prompt", None)
            if tell is not None:
                tell(tool_name)
            answer = await asker(request)
        if answer.choice == "once":
            return ALLOW if answer.updated_input is None else self._replace(tool_name, tool, answer.updated_input)
        if answer.choice == "session":
            self.allow_for_session(request.session_rules)
            return ALLOW
        text = USER_TEXT.format(tool=tool_name)
        note = answer.note.strip()
        return Decision("deny", f"{text} Their note: {note}" if note else text)

    def _replace(self, tool_name: str, tool: Any, updated: dict[str, Any]) -> Decision:
        """Allow the call with `updated` instead, as a new value: validated against the tool's
        schema, and refused by the guard or a deny rule exactly as the model's own arguments would be."""
        from flue_tui.core.validation import validate_arguments

        new, problem = validate_arguments(tool_name, tool.parameters, updated)
        if problem is not None or new is None:
            return Decision("deny", problem or "invalid arguments")
        refusal = self.guard.check(tool_name, new, tool) if self.guard is not None else None
        if refusal is None and (decision := self.decide(tool_name, new, tool)).verdict == "deny":
            refusal = decision.reason
        return Decision("deny", refusal) if refusal is not None else Decision("allow", args=new)


def policy_of(session: Any) -> PermissionPolicy | None:
    """The policy a session answers to, for front ends (ask callback, mode switch, denials)."""
    hook = getattr(getattr(session, "seams", None), "before_tool", None)
    return hook if isinstance(hook, PermissionPolicy) else None
