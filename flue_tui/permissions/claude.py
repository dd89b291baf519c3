"""Claude Code's `permissions` settings (`~/.claude/settings.json`, a project's
`.claude/settings.json` and `.claude/settings.local.json`, `--settings`) as flue's rules: the one
mapping of its rule syntax.

* `Bash(git diff:*)`, `Bash(npm run test *)`: flue's bash patterns already read them (prefix and
  wildcard; a trailing ` *` or `:*` also matches the bare prefix).
* `Read(…)` covers read, grep and glob (Claude Code applies Read rules to its search tools);
  `Edit(…)` covers edit and write (every tool that changes a file); `Write(…)` write,
  `MultiEdit(…)` edit; `Glob`, `Grep`, `Task`/`Agent`, `Skill`, `TodoWrite`, `BashOutput`,
  `KillShell` their flue tools; `mcp__server`, `mcp__server__tool` as they are.
* A path is anchored the way Claude Code anchors it, gitignore style: `//abs` from `/`, `~/x` from
  the home directory, `/x` from the settings file's root (the folder holding `.claude`), `./x` and
  `x` from the working directory; a pattern without a `/` (`.env`, `*.pem`) matches at any depth.
  The rule keeps its text as written: refusals quote it and /permissions shows it with its file.
* A rule flue cannot map (`WebFetch(domain:…)`, `WebSearch`, `NotebookEdit`, a pattern on a tool
  that has no subject) is never applied, and never silently: one sentence names it and its file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.hooks.names import flue_name
from flue_tui.permissions.flags import PERMISSION_MODES
from flue_tui.permissions.rules import Rule, RuleError, parse_rule

KINDS = ("allow", "deny", "ask")
# Claude Code's path tools → the flue tools one rule of it covers.
PATH_TOOLS = {"read": ("read", "grep", "glob"), "edit": ("edit", "write"), "write": ("write",)}
# flue tools whose rule pattern matches a path (their traits' subject is their `path` argument).
PATH_SUBJECTS = frozenset({"read", "write", "edit", "grep", "glob"})
# flue tools a Claude Code rule may name, with the ones whose rules take a pattern (a command).
FLUE_TOOLS = frozenset(
    "bash read write edit grep glob task activate_skill todo_write bash_background bash_output bash_kill".split()
)
COMMAND_SUBJECTS = frozenset({"bash", "bash_background"})


@dataclass(frozen=True, slots=True)
class ClaudePermissions:
    """One settings file's `permissions`, mapped: what applies is decided by its reader (trust)."""

    origin: str  # the file, or "--settings"
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    mode: str | None = None  # flue's name for its defaultMode
    add_dirs: tuple[str, ...] = ()
    unmapped: tuple[str, ...] = ()  # one sentence per rule or value flue cannot apply


def _escape(path: str) -> str:
    """A literal path inside a glob: a folder named `a[1]` must not become a character class."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def _anchored(pattern: str, root: str, cwd: str) -> list[str]:
    if pattern.startswith("//"):
        return [os.path.normpath(pattern[1:])]
    if pattern == "~" or pattern.startswith("~/"):
        return [_escape(os.path.expanduser("~")) + pattern[1:]]
    if pattern.startswith("/"):
        return [_escape(root) + pattern]
    rel = pattern[2:] if pattern.startswith("./") else pattern
    base = _escape(os.path.normpath(cwd))
    if "/" not in rel.rstrip("/"):  # gitignore: a bare name matches in every folder
        return [f"{base}/{rel}", f"{base}/*/{rel}"]
    return [f"{base}/{os.path.normpath(rel)}"]  # `src/../x` is the `x` the call's path normalises to


def map_rule(text: str, root: str, cwd: str) -> list[Rule] | str:
    """flue's rules for one Claude Code rule, or the sentence saying why there are none."""
    try:
        parsed = parse_rule(text)
    except RuleError as exc:
        return str(exc)
    written = text.strip()
    name = written.split("(", 1)[0].strip()
    if parsed.tool.startswith("mcp__") or parsed.tool == "*":
        return [parsed]
    key = name.lower()
    if key == "multiedit":
        key = "edit"
    tools = PATH_TOOLS.get(key)
    if tools is None:
        tool = flue_name(name) if flue_name(name) != name else key
        if tool not in FLUE_TOOLS:
            return f'The permission rule "{written}" names {name}, a tool flue does not have; it is not applied.'
        tools = (tool,)
    if parsed.pattern is None:
        return [Rule(tool, None, written) for tool in tools]
    if tools[0] in COMMAND_SUBJECTS:
        return [Rule(tool, parsed.pattern, written) for tool in tools]
    if tools[0] not in PATH_SUBJECTS:
        return (
            f'The permission rule "{written}" gives {name} a pattern, which flue cannot match for that tool; '
            "it is not applied."
        )
    patterns = _anchored(parsed.pattern, root, cwd)
    return [Rule(tool, pattern, written) for tool in tools for pattern in patterns]


def _strings(origin: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f'{origin}: permissions.{key} must be a list of rules, e.g. ["Bash(git diff:*)"]')
    return list(value)


def read_permissions(data: Any, origin: str, root: str, cwd: str) -> ClaudePermissions | None:
    """The `permissions` object of one settings file's JSON (None: it has none). A bad shape raises
    ConfigError naming the file and key; a rule or mode flue cannot apply is an `unmapped` sentence."""
    if not isinstance(data, dict) or "permissions" not in data:
        return None
    table = data["permissions"]
    if not isinstance(table, dict):
        raise ConfigError(f"{origin}: permissions must be an object with allow, deny, ask lists")
    rules: dict[str, list[Rule]] = {kind: [] for kind in KINDS}
    unmapped: list[str] = []
    for kind in KINDS:
        for text in _strings(origin, kind, table.get(kind, [])):
            mapped = map_rule(text, root, cwd)
            if isinstance(mapped, str):
                unmapped.append(f"{origin}: {mapped}")
            else:
                rules[kind] += mapped
    mode = table.get("defaultMode")
    flue_mode = None
    if mode is not None:
        if isinstance(mode, str) and mode in PERMISSION_MODES:
            flue_mode = PERMISSION_MODES[mode]
        else:
            shown = mode if isinstance(mode, str) else type(mode).__name__
            unmapped.append(
                f'{origin}: permissions.defaultMode "{str(shown)[:40]}" is not a mode flue has '
                f"({', '.join(PERMISSION_MODES)}); it is not applied."
            )
    dirs = _strings(origin, "additionalDirectories", table.get("additionalDirectories", []))
    add_dirs = tuple(os.path.normpath(os.path.join(root, os.path.expanduser(d))) for d in dirs)
    return ClaudePermissions(
        origin,
        tuple(rules["allow"]),
        tuple(rules["deny"]),
        tuple(rules["ask"]),
        flue_mode,
        add_dirs,
        tuple(unmapped),
    )
