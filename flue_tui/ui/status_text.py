"""/status and /context, worded once for every front end (the dispatcher in ui/commands.py calls
them with its `FrontEnd`): what the session is, and what fills the model's context window.

Token counts for /context are estimates the way compaction makes them (chars/4, Flue's rule,
agent/compaction.estimate); the measured number from the last turn is shown beside them.
"""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

# The front end is ui/commands.FrontEnd; typed loosely here, as commands.py calls into this module.
FrontEnd = Any

SKILLS_HEAD = "## Available Skills"


async def _window(fe: FrontEnd) -> int | None:
    session = fe.session
    if session is None:
        return None
    try:  # the model's metadata (litellm's map): read in a thread, it may still be loading
        return await asyncio.to_thread(session.context_window)
    except Exception:
        return None


def _share(tokens: int, window: int | None) -> str:
    return f"{tokens:,} of {window:,} tokens ({100 * tokens / window:.0f}%)" if window else f"{tokens:,} tokens"


def mcp_line() -> str:
    from flue_tui.mcp.manager import manager

    statuses = manager().statuses()
    if not statuses:
        return "none configured"
    counts: dict[str, int] = {}
    for s in statuses:
        counts[s.status] = counts.get(s.status, 0) + 1
    return f"{len(statuses)} ({', '.join(f'{n} {state}' for state, n in sorted(counts.items()))})"


async def status(fe: FrontEnd) -> str:
    """/status: model, session, permission mode, directory, context, cost, sandbox, MCP, effort."""
    from flue_tui.agent import usage_text

    settings, session, usage = fe.settings, fe.session, fe.usage
    policy = fe.policy()
    window = await _window(fe)
    context = fe.context_label() or (
        _share(usage.context_tokens, window) if usage.context_tokens else "nothing sent yet"
    )
    rows = [
        ("Model", settings.model or "(none)"),
        ("Session", f"{fe.session_label() or 'not started'}" + (f" ({session.id})" if session is not None else "")),
        ("Mode", policy.mode if policy is not None else (settings.permission_mode or "(no session)")),
        ("Directory", settings.cwd),
        ("Context", context),
        ("Cost", usage_text.brief(usage.total)),
        ("Sandbox", settings.sandbox),
        ("MCP servers", mcp_line()),
        ("Effort", settings.effort or "off"),
    ]
    width = max(len(k) for k, _ in rows) + 1
    return "Status:\n" + "\n".join(f"  {k + ':':<{width}} {v}" for k, v in rows)


def _chars(n: int) -> int:
    return math.ceil(n / 4)  # compaction.estimate's rule, for text that is not a Message


def prompt_parts(system_prompt: str, agents_md: str) -> list[tuple[str, int]]:
    """The system prompt split into flue's instructions, AGENTS.md/CLAUDE.md and the skills list."""
    skills = 0
    start = system_prompt.find(SKILLS_HEAD)
    if start >= 0:
        end = system_prompt.find("\n\n## ", start + len(SKILLS_HEAD))
        skills = (end if end >= 0 else len(system_prompt)) - start
    files = len(agents_md) if agents_md and agents_md in system_prompt else 0
    rest = max(0, len(system_prompt) - skills - files)
    return [("System prompt", _chars(rest)), ("AGENTS.md / CLAUDE.md", _chars(files)), ("Skills list", _chars(skills))]


def message_parts(messages: list[Any]) -> list[tuple[str, int]]:
    from flue_tui.agent.compaction import estimate
    from flue_tui.core.messages import AssistantMessage, ToolResultMessage, UserMessage

    sums = {"User messages": 0, "Assistant messages": 0, "Tool results": 0, "Compaction summaries": 0}
    for m in messages:
        if isinstance(m, UserMessage):
            key = "User messages"
        elif isinstance(m, AssistantMessage):
            key = "Assistant messages"
        elif isinstance(m, ToolResultMessage):
            key = "Tool results"
        else:
            key = "Compaction summaries"
        sums[key] += estimate(m)
    return list(sums.items())


async def context(fe: FrontEnd) -> str:
    """/context: what fills the window, by part, estimated; the last turn's measured total beside."""
    from flue_tui.context.agents_md import discover_workspace
    from flue_tui.core.files import workspace_roots
    from flue_tui.tools.base import tool_spec

    session = fe.session
    if session is None:
        return "No session yet."
    s = fe.settings
    from flue_tui.hooks.config import claude_dir

    roots = workspace_roots(s.sandbox, s.cwd, s.add_dirs)
    memory = str(claude_dir() / "CLAUDE.md")  # as the session's prompt read it (runtime/wiring.discover)
    workspace = await asyncio.to_thread(discover_workspace, session.cwd, roots, memory)
    tools = _chars(sum(len(json.dumps(tool_spec(t))) for t in session.tools.values()))
    parts = prompt_parts(session.system_prompt, workspace.instructions)
    parts.insert(1, (f"Tool schemas ({len(session.tools)} tools)", tools))
    parts += message_parts(list(session.messages))
    window = await _window(fe)
    total = sum(n for _, n in parts)
    width = max(len(k) for k, _ in parts) + 1
    lines = [f"Context (estimated, chars/4): {_share(total, window)}"]
    for label, n in parts:
        pct = f"  {100 * n / window:5.1f}%" if window else ""
        lines.append(f"  {label + ':':<{width}} {n:>9,}{pct}")
    if window:
        lines.append(
            f"  {'Free:':<{width}} {max(0, window - total):>9,}  {100 * max(0, window - total) / window:5.1f}%"
        )
    measured = fe.usage.context_tokens
    if measured:
        lines.append(f"Measured at the last turn: {_share(measured, window)}")
    return "\n".join(lines)


async def permissions(fe: FrontEnd) -> str:
    from flue_tui.ui.permissions_text import describe

    policy = fe.policy()
    if policy is None:
        return "No session yet."
    return await asyncio.to_thread(describe, policy, fe.settings)
