"""Skill discovery: the workspace's .agents/skills and .claude/skills, the user's
~/.config/flue/skills and ~/.claude/skills, and packaged skills. The SkillSet also carries Claude
Code's custom commands (context/commands.py): together they are what runs as `/name`."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from flue_tui.context.commands import ClaudeCommand, first_wins
from flue_tui.context.frontmatter import SkillFormatError, parse_skill_markdown
from flue_tui.core.files import read_regular_text, shown_name, utf8_name

SkillSource = Literal["workspace", "user", "packaged"]
PACKAGED_ROOT = "/.flue/packaged-skills"


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill the model can activate: its name, description and where its files are."""

    name: str
    description: str
    source: SkillSource
    directory: str  # absolute
    skill_md: str  # absolute path of SKILL.md
    resources: tuple[str, ...] = ()  # packaged only: files other than SKILL.md, relative, sorted
    skill_id: str = ""  # packaged only: skill:<name>:<hash>
    roots: tuple[str, ...] | None = None  # workspace skills under --sandbox workspace: re-reads stay inside
    lenient: bool = False  # from Claude Code's folders: its YAML reading (frontmatter.py), here and on re-read


@dataclass(slots=True)
class SkillSet:
    """The skills found, the custom commands beside them, and one warning per refused file."""

    skills: list[Skill] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    commands: list[ClaudeCommand] = field(default_factory=list)  # `/name` only; the model never activates one

    def get(self, name: str) -> Skill | None:
        """A skill by name (what `activate_skill` may load): never a command."""
        return next((s for s in self.skills if s.name == name), None)

    def runnable(self, name: str) -> Skill | ClaudeCommand | None:
        """What `/name` runs: a skill, else a custom command (a skill wins a clash, as in Claude Code)."""
        return self.get(name) or next((c for c in self.commands if c.name == name), None)

    def listing(self) -> list[tuple[str, str]]:
        """(name, description) of everything `/name` runs, skills first, for lists and completion."""
        shown = [(s.name, s.description) for s in self.skills]
        return shown + [(c.name, c.label) for c in self.commands if self.get(c.name) is None]

    @property
    def has_resources(self) -> bool:
        return any(s.resources for s in self.skills)


def packaged_skills_dir() -> Path | None:
    """Inside the wheel the skills are flue_tui/_skills; in a source checkout, the top-level skills/."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_skills", here.parent / "skills"):
        if candidate.is_dir():
            return candidate
    return None


def _skill_dirs(root: Path, warnings: list[str]) -> list[tuple[str, Path]]:
    try:
        names = sorted(os.listdir(root), key=os.fsencode)  # Node's readdir order
    except OSError:
        return []
    out = []
    for name in names:
        if not utf8_name(name):
            warnings.append(f"[flue] Skipping skill directory {shown_name(name)!r} in {root}: its name is not UTF-8.")
            continue
        path = root / name
        try:
            if not path.is_dir():  # follows symlinks, as Flue's stat does
                continue
        except OSError:
            continue
        if (path / "SKILL.md").is_file():
            out.append((name, path))
    return out


def _resources(directory: Path) -> tuple[str, ...]:
    files = []
    for dirpath, _dirs, names in os.walk(directory):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), directory).replace(os.sep, "/")
            if rel != "SKILL.md":
                files.append(rel)
    return tuple(sorted(files))


def _skill_id(name: str, directory: Path) -> str:
    pairs = []
    for rel in ("SKILL.md", *_resources(directory)):
        pairs.append([rel, read_regular_text(str(directory / rel))])
    digest = hashlib.sha256(json.dumps(sorted(pairs), ensure_ascii=False).encode()).hexdigest()
    return f"skill:{name}:{digest[:16]}"


def _scan(
    root: Path, source: SkillSource, into: SkillSet, roots: tuple[str, ...] | None = None, lenient: bool = False
) -> list[Skill]:
    found = []
    for entry, path in _skill_dirs(root, into.warnings):
        skill_md = path / "SKILL.md"
        try:
            doc = parse_skill_markdown(read_regular_text(str(skill_md), roots), str(skill_md), entry, lenient)
        except (SkillFormatError, OSError) as exc:
            into.warnings.append(f'[flue] Skipping invalid {source} skill "{entry}": {exc}')
            continue
        packaged = source == "packaged"
        found.append(
            Skill(
                name=doc.name,
                description=doc.description,
                source=source,
                directory=str(path),
                skill_md=str(skill_md),
                resources=_resources(path) if packaged else (),
                skill_id=_skill_id(doc.name, path) if packaged else "",
                roots=roots,
                lenient=lenient,
            )
        )
    return found


def discover_skills(
    cwd: str,
    user_dir: Path | None = None,
    packaged_dir: Path | None = None,
    roots: tuple[str, ...] | None = None,
    claude_dir: Path | None = None,
) -> SkillSet:
    """Workspace skills first (they win a name clash, with a warning): `.agents/skills`, then
    Claude Code's `.claude/skills`; then the user's (flue's folder, then `claude_dir`/skills), then
    packaged. `roots`: the workspace sandbox's, which a workspace skill must not leave (the user's
    and the packaged skills are flue's own, read wherever they are)."""
    result = SkillSet()
    layers = [
        _scan(Path(cwd) / folder / "skills", "workspace", result, roots, folder == ".claude")
        for folder in (".agents", ".claude")
    ]
    if user_dir is not None:
        layers.append(_scan(user_dir, "user", result))
    if claude_dir is not None:
        layers.append(_scan(claude_dir / "skills", "user", result, lenient=True))
    if packaged_dir is not None:
        layers.append(_scan(packaged_dir, "packaged", result))
    kept, hidden = first_wins(
        layers,
        lambda s: s.name,
        lambda s, w: (
            f'[flue] The {s.source} skill "{s.name}" is hidden by the {w.source} skill of the same name ({w.skill_md}).'
        ),
    )
    result.skills += kept
    result.warnings += hidden
    return result


def resource_path(skill: Skill, rel: str) -> str:
    """The advertised path of a packaged skill's supporting file."""
    from urllib.parse import quote

    return f"{PACKAGED_ROOT}/{quote(skill.skill_id, safe='')}/{rel}"


def activation_text(skill: Skill) -> str:
    """What activate_skill returns; the body is re-read now, so edits mid-session are picked up."""
    text = read_regular_text(skill.skill_md, skill.roots)
    doc = parse_skill_markdown(text, skill.skill_md, Path(skill.directory).name, skill.lenient)
    head = f'Run the skill named "{skill.name}".\n\n<skill_instructions>\n{doc.body}\n</skill_instructions>'
    if skill.source == "packaged":
        if not skill.resources:
            return head
        lines = "\n".join(f"- {rel} → read_skill_resource {resource_path(skill, rel)}" for rel in skill.resources)
        return (
            f"{head}\n\nSupporting skill resources are available but are not loaded into context unless "
            f"needed:\n<skill_resources>\n{lines}\n</skill_resources>"
        )
    return (
        f"{head}\n\nSupporting skill resources are available relative to this workspace skill directory but "
        f"are not loaded into context unless needed:\n<skill_resources>\n- Base directory: {skill.directory}\n"
        "- Resolve relative resource paths from this directory and read only the files you need.\n"
        "</skill_resources>"
    )


def skill_prompt(skill: Skill | ClaudeCommand, extra: str | None = None) -> str:
    """The user message that runs a skill directly (`flue -p --skill NAME`, `/NAME` in the TUI),
    or a custom command's body with its arguments put in."""
    if isinstance(skill, ClaudeCommand):
        return skill.prompt(extra)
    base = activation_text(skill) if skill.source == "packaged" else f'Run the skill named "{skill.name}".'
    return f"{base}\n\n{extra.strip()}" if extra and extra.strip() else base


def skill_typed(skill: Skill | ClaudeCommand, extra: str | None = None) -> str:
    """How a skill run reads in the transcript and after a resume: as typed, `/NAME args`."""
    if isinstance(skill, ClaudeCommand):
        return skill.typed(extra)
    return f"/{skill.name}" + (f" {extra.strip()}" if extra and extra.strip() else "")
