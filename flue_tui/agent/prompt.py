"""System prompt composition in Flue's order and format (flue-behaviour.md §7.2); the prose is ours."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence

from flue_tui.context.agents_md import WorkspaceContext
from flue_tui.context.skills import Skill
from flue_tui.context.subagents import Subagent

PREAMBLE = """You are flue, a coding agent working in the user's repository from their terminal.

- Understand before you change: read the relevant code, search for its callers, and check how the project builds and tests itself.
- Make small, precise edits that fit the surrounding style. Do not reformat or rewrite what you were not asked to touch.
- Verify your work by running it: the tests, the build, or the command the user cares about. Say plainly what you could not verify.
- Never discard the user's work: no destructive git commands, force pushes or deleting files you did not create, unless asked.
- Be brief. Report what you did and what the user should know, not every step you took."""

SKILLS_INTRO = (
    "Skills are playbooks for particular kinds of work. When the task at hand fits one of the descriptions "
    "below, call the `activate_skill` tool with its name before you start, so its full instructions are "
    "loaded. A skill's instructions and supporting files stay out of context until you activate or read them."
)

AGENTS_INTRO = (
    "The `task` tool hands a focused piece of work to one of these agents; name the one to use in its "
    "`agent` argument. This list may change during the conversation, and any change will be announced."
)

NO_AGENTS = (
    "None. No subagents are declared at the moment, so the `task` tool has no valid `agent` to name. "
    "Do not call it unless an agent is announced later in the conversation."
)


def flue_date(today: _dt.date | None = None) -> str:
    """Flue's date format: `Tue, Aug 4, 2026` (no zero padding)."""
    d = today or _dt.date.today()
    return f"{d.strftime('%a')}, {d.strftime('%b')} {d.day}, {d.year}"


def _catalog_line(name: str, description: str) -> str:
    return f"- **{name}** — {description}" if description else f"- **{name}**"


def compose_system_prompt(
    instructions: str,
    workspace: WorkspaceContext | None,
    skills: Sequence[Skill],
    agents: Sequence[Subagent],
    today: _dt.date | None = None,
) -> str:
    sections: list[str] = []
    if instructions.strip():
        sections.append(instructions.strip())
    if workspace is not None and workspace.instructions:
        sections.append(workspace.instructions)
    if skills:
        lines = "\n".join(_catalog_line(s.name, s.description) for s in skills)
        sections.append(f"## Available Skills\n\n{SKILLS_INTRO}\n\n{lines}")
    if agents:
        lines = "\n".join(_catalog_line(a.name, a.description) for a in agents)
        sections.append(f"## Available Agents\n\n{AGENTS_INTRO}\n\n{lines}")
    else:
        sections.append(f"## Available Agents\n\n{NO_AGENTS}")
    tail = f"Date: {flue_date(today)}"
    if workspace is not None:
        tail += f"\nWorking directory: {workspace.cwd}"
        if workspace.listing:
            tail += "\n\nDirectory structure:\n" + "\n".join(workspace.listing)
    sections.append(tail)
    return "\n\n".join(sections)
