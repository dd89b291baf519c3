"""The delegation roster: Flue's blank `flue-general` plus agents declared in .agents/agents/*.md,
Claude Code's .claude/agents/*.md, and the user's ~/.claude/agents/*.md, in that order (the first
of a name wins; a later one is skipped with a warning). Claude Code's `tools:` limits what the
child gets (runtime/wiring maps the names); `model: inherit` is the parent's model."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from flue_tui.context.commands import CLAUDE_ALIASES, alias_warning, tool_list
from flue_tui.context.frontmatter import SkillFormatError, check_name, split_frontmatter
from flue_tui.core.files import read_regular_text, shown_name, utf8_name

GENERAL_DESCRIPTION = (
    "General-purpose agent for independent research, file exploration, and parallel work. Runs with a "
    "fresh context and the workspace tools; give it complete instructions in the prompt."
)


@dataclass(frozen=True, slots=True)
class Subagent:
    """An agent a `task` call can delegate to: its instructions, model and tools."""

    name: str
    description: str
    instructions: str = ""  # the body of its .md file; flue-general has none
    model: str | None = None
    tools: tuple[str, ...] | None = None  # as written (Claude Code's names, rule spellings); None: every tool
    path: str = ""
    # "worktree": each task of this agent runs in a git worktree of its own (Claude Code's
    # agent frontmatter; the task tool's schema stays Flue's, so the agent asks, not the call).
    isolation: str | None = None


GENERAL = Subagent(name="flue-general", description=GENERAL_DESCRIPTION)


@dataclass(slots=True)
class Roster:
    """The subagents found, and one warning per file that was refused."""

    agents: list[Subagent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> Subagent | None:
        return next((a for a in self.agents if a.name == name), None)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.agents]


def _parse(path: Path, roots: tuple[str, ...] | None, lenient: bool) -> Subagent:
    text = read_regular_text(str(path), roots)
    data, body = split_frontmatter(text, str(path), lenient=lenient, label="" if lenient else "Skill ")
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
    model = (model or "").strip()
    tools = tool_list(data.get("tools"), "tools", str(path)) if "tools" in data else None
    isolation = data.get("isolation")
    if isolation is not None and isolation != "worktree":
        raise SkillFormatError(f'[flue] Agent {path} frontmatter isolation must be "worktree" when provided.')
    return Subagent(
        name=name,
        description=description.strip(),
        instructions=body,
        model=model if model and model != "inherit" else None,
        tools=tools,
        path=str(path),
        isolation=isolation,
    )


def discover_roster(cwd: str, roots: tuple[str, ...] | None = None, claude_dir: Path | None = None) -> Roster:
    """`roots`: the workspace sandbox's, which a linked agent file must not leave (the user's own
    folder, `claude_dir`/agents, is read wherever it is)."""
    roster = Roster(agents=[GENERAL])
    # Flue's own folder reads strict YAML; Claude Code's as Claude Code reads it (frontmatter.py).
    folders = [(Path(cwd) / ".agents" / "agents", roots, False), (Path(cwd) / ".claude" / "agents", roots, True)]
    if claude_dir is not None:
        folders.append((claude_dir / "agents", None, True))
    for root, within, lenient in folders:
        _read_folder(root, within, roster, lenient)
    return roster


def _read_folder(root: Path, roots: tuple[str, ...] | None, roster: Roster, lenient: bool) -> None:
    try:
        entries = sorted((e for e in os.listdir(root) if e.endswith(".md")), key=os.fsencode)
    except OSError:
        return
    for entry in entries:
        if not utf8_name(entry):
            roster.warnings.append(f"[flue] Skipping agent file {shown_name(entry)!r}: its name is not UTF-8.")
            continue
        try:
            agent = _parse(root / entry, roots, lenient)
        except (SkillFormatError, OSError) as exc:
            why = " ".join(str(exc).split())  # a YAML error's caret lines: one line
            roster.warnings.append(f'[flue] Skipping invalid agent "{entry}": {why}')
            continue
        if roster.get(agent.name) is not None:
            roster.warnings.append(f'[flue] Skipping agent "{entry}": the name "{agent.name}" is already declared.')
            continue
        if agent.model in CLAUDE_ALIASES:
            roster.warnings.append(alias_warning("agent", agent.name, agent.model))
            agent = replace(agent, model=None)
        roster.agents.append(agent)
