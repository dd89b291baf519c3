"""What Claude Code's `.claude/` folder changes about a session, beyond the prompt text:

* a task agent's `tools:` (Claude Code's names, `Bash(git *)` spellings too) is all its child gets;
* a custom command's `model` and `allowed-tools` hold for the prompt it runs, and only that one
  (Session.prompt_scope). `allowed-tools` pre-allows, as in Claude Code: the listed calls run
  without asking; other tools stay offered and ask as usual. A project's command pre-allows only
  once the user trusts its file (context/commands.py), and never past a deny rule or plan mode
  (the policy's allow rules already rank below both)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase
from typing import Any

from flue_tui.context.commands import ClaudeCommand
from flue_tui.context.subagents import Subagent
from flue_tui.hooks.names import claude_name, flue_name
from flue_tui.permissions.rules import RuleError, parse_rule, split_rule_list

# The lines a command's or an agent's run adds: `flue -p` says them on stderr in every format, as
# a checkpoint not taken (they explain why a call asked, or what a child did not get).
COMMANDS_TAG = "[flue:commands]"
AGENTS_TAG = "[flue:agents]"


def _named(entries: tuple[str, ...]) -> list[str]:
    """The tool names an agent's `tools:` entries name, as written (`Bash(git *)` → Bash)."""
    return [rule.split("(", 1)[0].strip() for entry in entries for rule in split_rule_list(entry)]


def _covers(wanted: str, tool: str) -> bool:
    """Whether a `tools:` name means this flue tool: flue's name or a glob of it (`mcp__github__*`),
    or Claude Code's name for it (`Bash` is bash and bash_background, as Claude Code's Bash runs
    in the background too)."""
    return fnmatchcase(tool, wanted) or fnmatchcase(tool, flue_name(wanted)) or claude_name(tool) == wanted


def agent_tools(tools: list[Any], agent: Subagent) -> tuple[list[Any], list[str]]:
    """(the tools the child keeps, the names that match none of `tools`) for an agent's `tools:`."""
    if agent.tools is None:
        return tools, []
    wanted = _named(agent.tools)
    kept = [t for t in tools if any(_covers(w, str(t.name)) for w in wanted)]
    unknown = [w for w in wanted if not w.startswith("mcp__") and not any(_covers(w, str(t.name)) for t in tools)]
    return kept, list(dict.fromkeys(unknown))


def wants_mcp(agent: Subagent) -> bool:
    """An agent limited by `tools:` gets MCP servers' tools only when it names one (`mcp__…`)."""
    return agent.tools is None or any(n.startswith("mcp__") for n in _named(agent.tools))


def warn(session: Any, line: str) -> None:
    """One line for the user on the session's event stream (every front end shows it)."""
    from flue_tui.core.events import Log

    session.emit(session.event(Log, level="warn", message=line))


def command_of(context: Any, sent: str, display: str | None) -> ClaudeCommand | None:
    """The custom command a prompt runs: what was typed is `/name args` and what is sent is that
    command's expansion of those arguments (every front end sends it so). A prompt that merely
    starts with a command's name (`flue --inline "/name"` sends it as written) gets nothing."""
    if not display or not display.startswith("/") or display.startswith("//") or not display[1:].strip():
        return None
    name, _, args = display[1:].partition(" ")
    skills = getattr(context, "skills", None)
    found = skills.runnable(name) if skills is not None else None
    if isinstance(found, ClaudeCommand) and found.prompt(args) == sent:
        return found
    return None


def prompt_scope(
    context: Any, make_model: Callable[[str], Any], trust_project: bool, warn: Callable[[Any, str], None]
) -> Callable[[Any, str, str | None], contextlib.AbstractContextManager[None]]:
    """Session.prompt_scope for one session's context."""

    @contextlib.contextmanager
    def scope(session: Any, sent: str, display: str | None) -> Iterator[None]:
        command = command_of(context, sent, display)
        if command is None:
            yield
            return
        model = session.model
        added: list[Any] = []
        policy = session.seams.before_tool
        if command.allowed_tools and hasattr(policy, "session_allow"):
            if command.trusted or trust_project:
                added = _rules(command, session, warn)
                policy.session_allow.extend(added)
            else:
                warn(
                    session,
                    f"{COMMANDS_TAG} /{command.name}: its allowed-tools are not pre-allowed until you trust this project.",
                )
        try:
            if command.model:
                try:
                    session.model = make_model(command.model)
                except Exception as exc:  # noqa: BLE001 - a bad model name is one line, the prompt still runs
                    warn(
                        session,
                        f"{COMMANDS_TAG} /{command.name}: model {command.model!r} cannot be used ({exc}); "
                        "using the session's.",
                    )
            yield
        finally:
            session.model = model
            for rule in added:
                with contextlib.suppress(ValueError):
                    policy.session_allow.remove(rule)

    return scope


def _rules(command: ClaudeCommand, session: Any, warn: Callable[[Any, str], None]) -> list[Any]:
    out = []
    for text in (r for entry in command.allowed_tools for r in split_rule_list(entry)):
        name, paren, rest = text.partition("(")
        try:
            out.append(parse_rule(flue_name(name.strip()) + paren + rest))
        except RuleError as exc:
            warn(session, f"{COMMANDS_TAG} /{command.name}: {exc}")
    return out
