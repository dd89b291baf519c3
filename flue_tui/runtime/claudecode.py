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
from flue_tui.hooks.names import flue_name
from flue_tui.permissions.rules import RuleError, parse_rule, split_rule_list


def _named(entries: tuple[str, ...]) -> list[str]:
    """The tool names an agent's `tools:` entries name, in flue's spelling (`Bash(git *)` → bash)."""
    return [flue_name(rule.split("(", 1)[0].strip()) for entry in entries for rule in split_rule_list(entry)]


def agent_tools(tools: list[Any], agent: Subagent) -> tuple[list[Any], list[str]]:
    """(the tools the child keeps, the names that match none of `tools`) for an agent's `tools:`."""
    if agent.tools is None:
        return tools, []
    wanted = _named(agent.tools)
    kept = [t for t in tools if any(fnmatchcase(str(t.name), w) for w in wanted)]
    unknown = [w for w in wanted if not w.startswith("mcp__") and not any(fnmatchcase(str(t.name), w) for t in tools)]
    return kept, list(dict.fromkeys(unknown))


def wants_mcp(agent: Subagent) -> bool:
    """An agent limited by `tools:` gets MCP servers' tools only when it names one (`mcp__…`)."""
    return agent.tools is None or any(n.startswith("mcp__") for n in _named(agent.tools))


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
        policy = session.before_tool
        if command.allowed_tools and hasattr(policy, "session_allow"):
            if command.trusted or trust_project:
                added = _rules(command, session, warn)
                policy.session_allow.extend(added)
            else:
                warn(session, f"/{command.name}: its allowed-tools are not pre-allowed until you trust this project.")
        try:
            if command.model:
                try:
                    session.model = make_model(command.model)
                except Exception as exc:  # noqa: BLE001 - a bad model name is one line, the prompt still runs
                    warn(
                        session,
                        f"/{command.name}: model {command.model!r} cannot be used ({exc}); using the session's.",
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
            warn(session, f"/{command.name}: {exc}")
    return out
