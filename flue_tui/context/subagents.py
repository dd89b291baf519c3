"""The delegation roster: Flue's blank `flue-general` plus agents declared in .agents/agents/*.md."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from flue_tui.context.frontmatter import SkillFormatError, check_name, split_frontmatter
from flue_tui.core.files import read_regular_text, shown_name, utf8_name

GENERAL_DESCRIPTION = (
    "General-purpose agent for independent research, file exploration, and parallel work. Runs with a "
    "fresh context and the workspace tools; give it complete instructions in the prompt."
)


@dataclass(frozen=True, slots=True)
class Subagent:
    name: str
    description: str
    instructions: str = ""  # the body of its .md file; flue-general has none
    model: str | None = None
    # "worktree": each task of this agent runs in a git worktree of its own (Claude Code's
    # agent frontmatter; the task tool's schema stays Flue's, so the agent asks, not the call).
    isolation: str | None = None


GENERAL = Subagent(name="flue-general", description=GENERAL_DESCRIPTION)


@dataclass(slots=True)
class Roster:
    agents: list[Subagent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> Subagent | None:
        return next((a for a in self.agents if a.name == name), None)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.agents]


def _parse(path: Path, roots: tuple[str, ...] | None) -> Subagent:
    data, body = split_frontmatter(read_regular_text(str(path), roots), str(path))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SkillFormatError(f"[flue] Agent {path} must define frontmatter name as a non-empty string.")
    name = name.strip()
    check_name(name, str(path))
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillFormatError(f"[flue] Agent {path} must define frontmatter description as a non-empty string.")
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise SkillFormatError(f"[flue] Agent {path} frontmatter model must be a string when provided.")
    isolation = data.get("isolation")
    if isolation is not None and isolation != "worktree":
        raise SkillFormatError(f'[flue] Agent {path} frontmatter isolation must be "worktree" when provided.')
    return Subagent(
        name=name,
        description=description.strip(),
        instructions=body,
        model=model.strip() if model and model.strip() else None,
        isolation=isolation,
    )


def discover_roster(cwd: str, roots: tuple[str, ...] | None = None) -> Roster:
    """`roots`: the workspace sandbox's, which a linked agent file must not leave."""
    roster = Roster(agents=[GENERAL])
    root = Path(cwd) / ".agents" / "agents"
    try:
        entries = sorted((e for e in os.listdir(root) if e.endswith(".md")), key=os.fsencode)
    except OSError:
        return roster
    for entry in entries:
        if not utf8_name(entry):
            roster.warnings.append(f"[flue] Skipping agent file {shown_name(entry)!r}: its name is not UTF-8.")
            continue
        try:
            agent = _parse(root / entry, roots)
        except (SkillFormatError, OSError) as exc:
            roster.warnings.append(f'[flue] Skipping invalid agent "{entry}": {exc}')
            continue
        if roster.get(agent.name) is not None:
            roster.warnings.append(f'[flue] Skipping agent "{entry}": the name "{agent.name}" is already declared.')
            continue
        roster.agents.append(agent)
    return roster
