"""SKILL.md frontmatter with Flue's rules and error texts (flue-behaviour.md §6.2)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_FENCE_RE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_NAME_RE = re.compile(r"^[a-z0-9-]+$")


class SkillFormatError(Exception):
    """A malformed SKILL.md; the message is Flue's text."""


@dataclass(frozen=True, slots=True)
class SkillDoc:
    """A SKILL.md file read: its frontmatter fields and its body."""

    name: str
    description: str
    body: str
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()


def _yaml() -> Any:
    """PyYAML, imported for the first file that has frontmatter (a start without any does not pay for it)."""
    import yaml

    return yaml


def _fast_loader(yaml: Any) -> Any:
    return getattr(yaml, "CBaseLoader", yaml.BaseLoader)


_PLAIN_LINE = re.compile(r"^([A-Za-z_][\w-]*):[ \t]+([^'\"\[{|>&*!#\s].*?)[ \t]*$")


def _quoted(block: str) -> str:
    """Claude Code's reading of a frontmatter strict YAML refuses: a top-level `key: value` whose
    plain value holds `: ` or ` #` (an agent file Claude Code's /agents wrote, a description with
    `Examples: … Context: …`) is read as that whole line's text."""
    lines = []
    for line in block.split("\n"):
        m = _PLAIN_LINE.match(line)
        if m and (": " in m.group(2) or " #" in m.group(2)):
            line = f"{m.group(1)}: '" + m.group(2).replace("'", "''") + "'"
        lines.append(line)
    return "\n".join(lines)


def split_frontmatter(text: str, path: str, *, lenient: bool = False, label: str = "Skill ") -> tuple[dict, str]:
    """Return (mapping of strings, body) or raise with Flue's fence/YAML texts. `lenient`: Claude
    Code's files, whose frontmatter strict YAML may refuse where Claude Code reads it (`_quoted`)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    match = _FENCE_RE.match(text)
    if not match:
        raise SkillFormatError(
            f'[flue] Skill {path} is missing YAML frontmatter. Start SKILL.md with "---", include "name" '
            'and "description", then close the block with "---".'
        )
    # Claude Code's files may come by the hundred (a commands folder): libyaml's loader, the same
    # FAILSAFE schema, when PyYAML has it; SKILL.md keeps the pure loader, whose errors Flue quotes.
    data = _simple(match.group(1))
    if data is None:
        yaml = _yaml()
        loader = _fast_loader(yaml) if lenient else yaml.BaseLoader
        try:
            # BaseLoader = js-yaml's FAILSAFE schema: every scalar stays a string.
            data = yaml.load(match.group(1), Loader=loader)  # noqa: S506 - BaseLoader builds no objects
        except yaml.YAMLError as exc:
            data = _lenient(match.group(1)) if lenient else None
            if data is None:
                raise SkillFormatError(f"[flue] {label}{path} has invalid YAML frontmatter. {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SkillFormatError(f"[flue] Skill {path} frontmatter must be a YAML mapping.")
    return data, text[match.end() :].strip()


# `key: value` with a plain value YAML reads as that text and nothing else: no indicator first, no
# `: ` or ` #` inside, no tab, nothing unprintable (tests/context/test_frontmatter_simple.py holds
# it equal to PyYAML's reading on every fixture).
_SIMPLE_LINE = re.compile(r"([A-Za-z_][\w-]*): +([^-?:,\[\]{}#&*!|>'\"%@`\s][^\t]*)")
_MAX_KEY = 1024  # YAML's simple keys: a longer one is PyYAML's (and libyaml's) error, Flue's invalid YAML


def _simple(block: str) -> dict[str, str] | None:
    """The common frontmatter (the packaged skills': `name:` and `description:` lines), read
    without PyYAML; None for anything else, which PyYAML reads."""
    data: dict[str, str] = {}
    for line in block.split("\n"):
        m = _SIMPLE_LINE.fullmatch(line.rstrip(" "))
        if m is None or m.group(1) in data or len(m.group(1)) > _MAX_KEY:
            return None
        value = m.group(2)
        if ": " in value or " #" in value or value.endswith(":") or not value.isprintable():
            return None
        data[m.group(1)] = value
    return data


def _lenient(block: str) -> object | None:
    yaml = _yaml()
    try:
        return yaml.load(_quoted(block), Loader=_fast_loader(yaml))  # noqa: S506 - BaseLoader builds no objects
    except yaml.YAMLError:
        return None


def _required(data: dict, key: str, path: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SkillFormatError(f"[flue] Skill {path} must define frontmatter {key} as a non-empty string.")
    return value.strip()


def _optional(data: dict, key: str, path: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise SkillFormatError(f"[flue] Skill {path} frontmatter {key} must be a string when provided.")
    return value


def check_name(name: str, path: str) -> None:
    if len(name) > 64:
        raise SkillFormatError(f"[flue] Skill {path} name must be at most 64 characters.")
    if not _NAME_RE.match(name):
        raise SkillFormatError(
            f'[flue] Skill {path} frontmatter name "{name}" must contain only lowercase ASCII letters, '
            'numbers, and hyphens. Use a spec-compliant value such as "review-pr".'
        )
    if name.startswith("-") or name.endswith("-") or "--" in name:
        raise SkillFormatError(
            f'[flue] Skill {path} frontmatter name "{name}" must not start or end with a hyphen or contain '
            'consecutive hyphens. Use a spec-compliant value such as "review-pr".'
        )


def parse_skill_markdown(text: str, path: str, directory: str | None, lenient: bool = False) -> SkillDoc:
    """`lenient`: a skill in Claude Code's folders, whose YAML is read as Claude Code reads it."""
    data, body = split_frontmatter(text, path, lenient=lenient)
    name = _required(data, "name", path)
    check_name(name, path)
    if directory is not None and name != directory:
        raise SkillFormatError(
            f'[flue] Skill {path} declares frontmatter name "{name}", but Agent Skills requires it to match '
            f'directory "{directory}"; names must match. Rename the directory or change "name" so they match.'
        )
    description = _required(data, "description", path)
    if len(description) > 1024:
        raise SkillFormatError(
            f"[flue] Skill {path} frontmatter description exceeds the 1024-character Agent Skills limit. "
            'Shorten "description" to a concise one-line summary.'
        )
    license_ = _optional(data, "license", path)
    compatibility = _optional(data, "compatibility", path)
    if compatibility is not None and len(compatibility) > 500:
        raise SkillFormatError(f"[flue] Skill {path} compatibility must be at most 500 characters.")
    metadata = data.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict) or not all(
        isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in metadata.items()
    ):
        raise SkillFormatError(f"[flue] Skill {path} frontmatter metadata must be a string-to-string mapping.")
    allowed = data.get("allowed-tools")
    if allowed is not None and not isinstance(allowed, str):
        raise SkillFormatError(f"[flue] Skill {path} frontmatter allowed-tools must be a string when provided.")
    return SkillDoc(
        name=name,
        description=description,
        body=body,
        license=license_,
        compatibility=compatibility,
        metadata={k: v or "" for k, v in metadata.items()},
        allowed_tools=tuple(allowed.split()) if allowed else (),
    )
