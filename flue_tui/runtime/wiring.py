"""The one place where concrete parts are wired together for a run."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flue_tui.agent.compaction import CompactionConfig
from flue_tui.agent.prompt import PREAMBLE, compose_system_prompt
from flue_tui.agent.seams import Seams
from flue_tui.agent.session import Session
from flue_tui.config.errors import ConfigError
from flue_tui.config.files import reads
from flue_tui.config.paths import skills_dir
from flue_tui.config.settings import Settings
from flue_tui.config.text import read_utf8_file
from flue_tui.context.agents_md import discover_workspace
from flue_tui.context.skills import SkillSet, discover_skills, packaged_skills_dir
from flue_tui.context.subagents import Roster, Subagent, discover_roster
from flue_tui.core.files import workspace_roots
from flue_tui.core.ids import new_id
from flue_tui.model.base import ModelClient

if TYPE_CHECKING:
    from flue_tui.hooks.lifecycle import ChildHooks, SessionHooks
    from flue_tui.runtime.checkpointing import TurnCheckpoints
    from flue_tui.sandbox.local import LocalSandbox
    from flue_tui.tools.base import Tool


def _instructions(settings: Settings) -> str:
    text = PREAMBLE if settings.system_prompt is None else settings.system_prompt
    if settings.system_prompt_file:
        text = read_utf8_file(settings.system_prompt_file, "--system-prompt-file")
    if settings.append_system_prompt:
        text = f"{text.rstrip()}\n\n{settings.append_system_prompt.strip()}"
    return text


@dataclass(slots=True)
class Context:
    """What discovery found for one cwd: re-read when a session starts or resumes, never per turn."""

    system_prompt: str
    skills: SkillSet
    roster: Roster
    warnings: list[str] = field(default_factory=list)


class Runtime:
    """Builds sessions (root and task children) from settings."""

    def __init__(self, settings: Settings) -> None:
        if not settings.model:
            from flue_tui.model.keyhelp import no_key_help

            raise ConfigError(no_key_help(None, None))
        self.settings = settings
        prices(settings)  # a half-set price stops the start, not the first turn
        self.instructions = _instructions(settings)
        # Task agents defined after the start (the Agent SDK's `agents`): every discovery adds them,
        # over a file's agent of the same name, as Claude Code prefers programmatic agents.
        self.extra_agents: list[Subagent] = []
        self._sandbox: LocalSandbox | None = None
        from flue_tui.tools.background import Jobs

        self.jobs = Jobs()  # background commands (bash_background), shared by the session and its tasks
        from flue_tui.runtime.worktree import TaskTrees

        self._task_trees = TaskTrees()  # where `isolation: worktree` agents' tasks run
        from flue_tui.permissions.config import load_for
        from flue_tui.permissions.project import notices

        # Read now so a bad [permissions] table stops the start with a message naming file and key.
        self.permissions = load_for(settings)
        # Start-up notices: what an untrusted project file did not get, then the sandbox's.
        self.sandbox_notices: list[str] = notices(settings, self.permissions.held, self.permissions.never)
        # Config files that could not be read (skipped) and Claude Code rules flue cannot map: once each.
        for line in (*settings.skipped_files, *self.permissions.notices):
            if line not in self.sandbox_notices:
                self.sandbox_notices.append(line)
        from flue_tui.mcp.config import load as load_mcp
        from flue_tui.mcp.manager import manager

        # Read now (a bad server entry stops the start in one sentence); started later, in the background.
        mcp_setup = load_mcp(settings)
        self.mcp = manager()
        self.mcp.configure(mcp_setup, settings.cwd)
        self.mcp.echo_stderr = not settings.interactive
        self.sandbox_notices.extend(n for n in mcp_setup.notices if n not in self.sandbox_notices)
        from flue_tui.hooks.config import load as load_hooks

        # Read now: a bad hook in the user's own files stops the start in one sentence.
        self.hooks = load_hooks(settings)
        self.sandbox_notices.extend(n for n in self.hooks.notices if n not in self.sandbox_notices)

    def discover(self, cwd: str, instructions: str, *, commands: bool = True) -> Context:
        """`commands`: Claude Code's `.claude/commands` too (only what a person types runs them, so
        a task child, which no one types to, skips reading a folder that may hold hundreds)."""
        s = self.settings
        roots = workspace_roots(s.sandbox, s.cwd, s.add_dirs)  # what the file tools may open, no more
        from flue_tui.context.commands import discover_commands
        from flue_tui.hooks.config import claude_dir

        claude = claude_dir()  # Claude Code's own folder: its skills, commands, agents and CLAUDE.md
        skills = discover_skills(
            cwd, user_dir=skills_dir(), packaged_dir=packaged_skills_dir(), roots=roots, claude_dir=claude
        )
        found = discover_commands(cwd, claude / "commands", roots) if commands else None
        skills.commands = found.commands if found is not None else []
        roster = discover_roster(cwd, roots, claude)
        for extra in self.extra_agents:
            roster.agents = [a for a in roster.agents if a.name != extra.name] + [extra]
        # --setting-sources (the Agent SDK's setting_sources=[]): memory only from the sources
        # named, as Claude Code loads no CLAUDE.md then; the listing stays, as in Flue.
        user_memory = str(claude / "CLAUDE.md") if reads(s.setting_sources, "user") else None
        workspace = discover_workspace(cwd, roots, user_memory, project=reads(s.setting_sources, "project"))
        prompt = compose_system_prompt(instructions, workspace, skills.skills, roster.agents)
        warnings = [*workspace.warnings, *skills.warnings, *(found.warnings if found else []), *roster.warnings]
        return Context(prompt, skills, roster, warnings)

    def _tools(self, sandbox: LocalSandbox, context: Context) -> list[Tool]:
        from flue_tui.permissions.policy import AS_BASH
        from flue_tui.permissions.rules import parse_rules
        from flue_tui.tools import builtin_tools
        from flue_tui.tools.background import BashBackgroundTool, BashKillTool, BashOutputTool
        from flue_tui.tools.skill import ActivateSkillTool, ReadSkillResourceTool
        from flue_tui.tools.task import TaskTool
        from flue_tui.tools.todo import TodoWriteTool

        tools = [*builtin_tools(sandbox), TaskTool(context.roster, self._make_child, self._task_trees)]
        if context.skills.skills:
            tools.append(ActivateSkillTool(context.skills))
        if context.skills.has_resources:
            tools.append(ReadSkillResourceTool(context.skills))
        # flue's additions come after Flue's own tools, so the array Flue sends stays its prefix.
        tools += [TodoWriteTool(), BashBackgroundTool(sandbox, self.jobs), BashOutputTool(self.jobs)]
        tools.append(BashKillTool(self.jobs))
        # --tools, for every session built here (sub-agents included, so delegating cannot bring a
        # tool back); finish/give_up are added per prompt, as always.
        offered = self.settings.tools
        tools = tools if offered is None else [t for t in tools if t.name in offered]
        # A whole tool named by --disallowed-tools is not offered at all (a model never sees a tool
        # it may not call); a rule with a pattern (`bash(rm *)`) still only refuses matching calls.
        denied = [*parse_rules(self.settings.disallowed_tools), *self.permissions.claude_rules("deny")]
        gone = [r for r in denied if r.pattern is None]  # with Claude Code's settings' whole-tool denies
        return [t for t in tools if not any(r.covers_tool(AS_BASH.get(str(t.name), str(t.name))) for r in gone)]

    def _model(self, model: str) -> ModelClient:
        return model_client(self.settings, model, main=model == self.settings.model)

    def _compaction(self) -> CompactionConfig:
        summariser = self.settings.compaction_model
        return CompactionConfig(auto=self.settings.auto_compact, model=self._model(summariser) if summariser else None)

    def _sandbox_for(self, cwd: str | None) -> LocalSandbox:
        from flue_tui.sandbox.workspace import make_sandbox  # local(), or contained with --sandbox workspace

        if cwd is None:
            if self._sandbox is None:
                self._sandbox = make_sandbox(self.settings, self.settings.cwd, self.sandbox_notices)
            return self._sandbox
        return make_sandbox(self.settings, cwd, self.sandbox_notices)

    def new_session(self, checkpoints: TurnCheckpoints | None = None, **kw: Any) -> tuple[Session, Context]:
        """A root session in settings.cwd (fresh, or with `messages` / `session_id` / `usage` to resume),
        built whole: its policy (with the user's hooks), MCP, prompt hooks, a custom command's scope
        and `checkpoints` are given at construction, nothing is set on it afterwards."""
        from flue_tui.permissions.config import session_policy
        from flue_tui.runtime.claudecode import prompt_scope, warn

        context = self.discover(self.settings.cwd, self.instructions)
        sandbox = self._sandbox_for(None)
        kw["session_id"] = kw.get("session_id") or new_id("ses")  # known first: the hooks' payloads carry it
        session: Session | None = None  # what the hooks and the fallback say goes to the session built below
        hooks = self._hooks(kw["session_id"], lambda: session, lambda: policy.mode)
        policy = session_policy(self.settings, self.permissions, self.sandbox_notices, context.warnings, hooks)
        model = self.settings.model or ""
        session = Session(
            model=main_client(self.settings, model, announce_fallback(self.settings, model, lambda: session)),
            tools=self._tools(sandbox, context),
            system_prompt=context.system_prompt,
            cwd=self.settings.cwd,
            max_turns=self.settings.max_turns,
            retry_base_ms=self.settings.retry_base_ms,
            compaction=self._compaction(),
            max_budget_usd=self.settings.max_budget_usd,
            seams=Seams(
                before_tool=policy,
                recompose=lambda: self.discover(self.settings.cwd, self.instructions, commands=False).system_prompt,
                before_turn=self.mcp.before_turn,  # MCP servers started and their tools current
                before_prompt=checkpoints,
                after_prompt=checkpoints.end if checkpoints is not None else None,
                drop_prompt=checkpoints.drop if checkpoints is not None else None,
                prompt_hooks=hooks,  # the root session's prompts and compactions
                # PostToolUse (none matching: nothing runs); task children take their parent's (Seams)
                after_tool=hooks.post_tool if hooks is not None else None,
                prompt_scope=prompt_scope(context, self._model, bool(self.settings.trust_project), warn),
                watch_tool=checkpoints.watch if checkpoints is not None else None,  # what its calls wrote
            ),
            **kw,
        )
        self.mcp.attach(session)  # offered the servers' tools, now and whenever they change
        if hooks is not None and self.settings.interactive:
            hooks.watch_idle(session)  # Notification idle_prompt: someone is at the prompt
        return session, context

    def _hooks(
        self, session_id: str, session: Callable[[], Session | None], mode: Callable[[], str]
    ) -> SessionHooks | None:
        """The user's hooks (flue_tui/hooks) for one root session, or None when there are none:
        PreToolUse and Notification through its policy (children share it), the prompt's and the
        session's own as its `prompt_hooks`. Under --input-format stream-json there is one even
        without hooks: the Agent SDK's callback hooks join it at initialize (add_sdk_hooks)."""
        if not self.hooks.hooks and not self.settings.sdk_hooks:
            return None
        from flue_tui.core.events import Log
        from flue_tui.hooks.events import TAG
        from flue_tui.hooks.lifecycle import SessionHooks

        def say(line: str) -> None:  # a hook's failure or systemMessage: one line for the user
            target = session()
            if target is not None:
                target.emit(target.event(Log, level="warn", message=f"{TAG} {line}"))

        def last_text() -> str:
            target = session()
            return target.last_assistant_text() if target is not None else ""

        hooks = SessionHooks(self.hooks, self.settings.cwd, say)
        hooks.session_id = session_id
        hooks.mode = mode
        hooks.last_text = last_text
        hooks.background = lambda: [
            {
                "id": j.id,
                "type": "shell",
                "status": "running",
                "description": j.description[:1000],
                "command": j.command[:1000],
            }
            for j in self.jobs.running()
        ]
        return hooks

    def _child_hooks(
        self, parent: Session, agent: Subagent, task_id: str, child: Callable[[], Session | None]
    ) -> ChildHooks | None:
        """A task child answers SubagentStop where its parent answers Stop (hooks/lifecycle.py)."""
        from flue_tui.hooks.lifecycle import ChildHooks, SessionHooks

        hooks = parent.seams.prompt_hooks
        root = hooks.parent if isinstance(hooks, ChildHooks) else hooks
        if not isinstance(root, SessionHooks):
            return None
        mine = root.for_child(agent.name, task_id)

        def last_text() -> str:
            target = child()
            return target.last_assistant_text() if target is not None else ""

        mine.last_text = last_text
        return mine

    def _make_child(self, parent: Session, agent: Subagent, cwd: str | None, read_only: bool = False) -> Session:
        child_cwd = os.path.normpath(os.path.join(parent.cwd, cwd)) if cwd else parent.cwd
        sandbox = self._sandbox_for(child_cwd if child_cwd != self.settings.cwd else None)
        # Fresh context: only the subagent's own instructions, discovery from the child's cwd.
        context = self.discover(child_cwd, agent.instructions, commands=False)
        from flue_tui.runtime.claudecode import AGENTS_TAG, agent_tools, wants_mcp, warn

        tools, unknown = agent_tools(self._tools(sandbox, context), agent)  # Claude Code's `tools:`
        if unknown:
            names = ", ".join(unknown)
            warn(parent, f'{AGENTS_TAG} The agent "{agent.name}" names tools flue does not have: {names}.')
        task_id = new_id("task")
        child: Session | None = None  # its SubagentStop reads its last answer, once built
        child = Session(
            model=self._model(agent.model or parent.model.model),
            tools=tools,
            system_prompt=context.system_prompt,
            cwd=child_cwd,
            task_id=task_id,
            parent_session=parent.id,
            depth=parent.depth + 1,
            retry_base_ms=self.settings.retry_base_ms,
            compaction=self._compaction(),
            parent=parent,  # its usage counts in the caller's totals (and the budget's)
            seams=Seams(
                recompose=lambda: self.discover(child_cwd, agent.instructions, commands=False).system_prompt,
                before_tool=_held(parent.seams.before_tool)
                if read_only
                else parent.seams.before_tool,  # the same policy
                before_turn=self.mcp.before_turn if wants_mcp(agent) else None,  # and the same MCP servers
                prompt_hooks=self._child_hooks(parent, agent, task_id, lambda: child),
            ),
        )
        if wants_mcp(agent):
            self.mcp.attach(child)
        return child


def _held(policy: Any) -> Any:
    """A read-only task's policy: the parent's, held in plan mode (PermissionPolicy.held)."""
    from flue_tui.permissions.policy import PermissionPolicy

    return policy.held("plan") if isinstance(policy, PermissionPolicy) else policy


def add_sdk_hooks(session: Session, hooks: tuple[Any, ...], sdk: Any) -> None:
    """The Agent SDK's callback hooks, registered by its initialize request after the session was
    built: they join the session's hooks object (Runtime._hooks made one for them), answered by `sdk`."""
    from flue_tui.hooks.lifecycle import SessionHooks

    existing = session.seams.prompt_hooks
    if not isinstance(existing, SessionHooks):  # a session built without sdk_hooks: a caller's mistake
        raise ValueError("This session takes no Agent SDK hooks (it was not started for stream-json input).")
    existing.setup = dataclasses.replace(existing.setup, hooks=existing.setup.hooks + tuple(hooks))
    existing.sdk = sdk


def model_client(settings: Settings, model: str, *, main: bool) -> Any:
    """The one place a model client is built: the session's, a task child's, the summariser's, the
    `--fallback-model`'s, and `/model`'s swap. Every client gets the user's bounds and cache setting;
    the window, output limit and prices configured are the main model's (`main`). Which path it
    takes (flue's own HTTP or litellm) is model/route.py's to say."""
    from flue_tui.model.clients import client_for

    return client_for(
        model,
        transport=settings.transport,
        api_base=settings.api_base,
        context_window=settings.context_window if main else None,
        prompt_cache=settings.prompt_cache,
        prices=prices(settings) if main else None,
        effort=settings.effort,
        max_output_tokens=settings.max_output_tokens if main else None,
        idle_timeout=settings.idle_timeout,
        max_reply_chars=settings.max_reply_chars,
    )


def main_client(settings: Settings, model: str, on_switch: Callable[[str], None]) -> ModelClient:
    """A root session's client (at its start and on /model): `model`, behind `--fallback-model`
    when that names another model. Both are built by model_client, so both get the user's bounds;
    task children keep their own model (Claude Code's fallback is the main loop's too)."""
    client = model_client(settings, model, main=True)
    spare = settings.fallback_model
    if not spare or spare == model:
        return client
    from flue_tui.model.fallback import FallbackClient

    return FallbackClient(client, model_client(settings, spare, main=False), on_switch)


def announce_fallback(settings: Settings, model: str, session: Callable[[], Session | None]) -> Callable[[str], None]:
    """The fallback's one sentence as a typed event on the session's stream, which every front end
    shows (the app and inline as a notice, --plain on stderr, -p on stderr in every format)."""
    from flue_tui.core.events import Fallback

    def say(text: str) -> None:
        target = session()
        if target is not None:
            target.emit(target.event(Fallback, message=text, model=model, fallback=settings.fallback_model or ""))

    return say


def prices(settings: Settings) -> Any:
    """The config's per-million prices for the main model, or None; both or neither must be set."""
    from flue_tui.model.pricing import Prices

    if settings.input_price is None and settings.output_price is None:
        return None
    if settings.input_price is None or settings.output_price is None:
        raise ConfigError("Set both input_price and output_price (USD per million tokens), or neither.")
    return Prices(settings.input_price, settings.output_price)


def build_session(settings: Settings) -> Session:
    session, _ = Runtime(settings).new_session()
    return session
