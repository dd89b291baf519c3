"""Claude Code's custom slash commands: `.claude/commands/**/*.md` (the project's) and
`~/.claude/commands/**/*.md` (the user's, `$CLAUDE_CONFIG_DIR/commands` when set).

A file's path names the command, a subfolder its namespace (`frontend/component.md` is
`/frontend:component`), as Claude Code names them. The frontmatter is optional: `description`
(else the body's first line), `argument-hint`, `allowed-tools` (pre-allowed for that command's
prompt), `model`. `$ARGUMENTS`, `$ARGUMENTS[N]` and `$1`…`$9` are replaced by the text typed after
the name, in one pass over the body: nothing is handed to a shell, and an argument that itself
holds `$1` stays as typed. A project's command file must lie inside the project (a link out of it
is skipped: a repository must not turn `~/.ssh/id_rsa` into a prompt)."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from flue_tui.config import trust
from flue_tui.context.frontmatter import SkillFormatError, split_frontmatter
from flue_tui.core.files import OutsideRoots, read_own, shown_name, utf8_name

CommandSource = Literal["project", "user"]
_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")  # one path part of a name: no spaces, no `:`
_PLACEHOLDER = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$([1-9])")
MAX_DEPTH = 4  # namespaces nest this deep at most; deeper folders are not walked
MAX_FILES = 500  # a folder of thousands of files is a mistake, not a command set
# Claude Code's model aliases name Anthropic's current models; flue cannot know which one the user
# means on their provider, so the command or agent keeps the session's model and says so once.
CLAUDE_ALIASES = ("sonnet", "opus", "haiku", "opusplan")


@dataclass(frozen=True, slots=True)
class ClaudeCommand:
    name: str  # "workflow:rca"
    description: str
    source: CommandSource
    path: str
    body: str
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()  # rules as Claude Code writes them: `Bash(git add:*)`, `Read`
    model: str | None = None  # None: the session's
    # Whether its allowed-tools may pre-allow: the user's own always; a project's once the user
    # trusts that file (`flue trust`, the start-up question, --trust-project), like its hooks.
    trusted: bool = False

    def prompt(self, arguments: str | None) -> str:
        """The body with the arguments put in (Claude Code's rules: with no placeholder in the
        body, typed arguments are appended as `ARGUMENTS: …`)."""
        args = (arguments or "").strip()
        words = _words(args)
        if not _PLACEHOLDER.search(self.body):
            return f"{self.body}\n\nARGUMENTS: {args}" if args else self.body

        def put(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                index = int(match.group(1))
            elif match.group(2) is not None:
                index = int(match.group(2)) - 1
            else:
                return args
            return words[index] if index < len(words) else ""

        return _PLACEHOLDER.sub(put, self.body)

    def typed(self, arguments: str | None) -> str:
        args = (arguments or "").strip()
        return f"/{self.name}" + (f" {args}" if args else "")

    @property
    def label(self) -> str:
        """How lists show it: the description, the hint and where it comes from."""
        hint = f" {self.argument_hint}" if self.argument_hint else ""
        return f"{self.description}{hint} ({self.source})"


def _words(args: str) -> list[str]:
    """The positional arguments: split as a shell splits words (quotes group), never expanded."""
    try:
        return shlex.split(args)
    except ValueError:  # an unclosed quote: plain whitespace splitting
        return args.split()


@dataclass(slots=True)
class CommandSet:
    commands: list[ClaudeCommand] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> ClaudeCommand | None:
        return next((c for c in self.commands if c.name == name), None)


def tool_list(value: object, key: str, path: str) -> tuple[str, ...]:
    """`allowed-tools` / `tools`: a string (its rules split where they are used, by
    permissions/rules.split_rule_list) or a YAML list of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value.strip(),) if value.strip() else ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise SkillFormatError(f"[flue] {path} frontmatter {key} must be a string or a list of strings.")


def parse_command(text: str, path: str, name: str, source: CommandSource, trusted: bool = False) -> ClaudeCommand:
    if text.lstrip("\ufeff").startswith("---"):
        data, body = split_frontmatter(text, path, lenient=True)
    else:
        data, body = {}, text.lstrip("\ufeff").strip()
    for key in ("description", "argument-hint", "model"):
        if key in data and not isinstance(data[key], str):
            raise SkillFormatError(f"[flue] {path} frontmatter {key} must be a string when provided.")
    description = str(data.get("description") or "").strip()
    if not description:
        first = next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")
        description = first[:100] or name
    model = str(data.get("model") or "").strip()
    return ClaudeCommand(
        name=name,
        description=" ".join(description.split()),
        source=source,
        path=path,
        body=body,
        argument_hint=" ".join(str(data.get("argument-hint") or "").split()),
        allowed_tools=tool_list(data.get("allowed-tools"), "allowed-tools", path),
        model=model if model and model != "inherit" else None,
        trusted=trusted,
    )


def alias_warning(kind: str, name: str, alias: str | None) -> str:
    return (
        f"[flue] The {kind} {name} asks for Claude Code's model alias \"{alias}\"; it runs on the session's "
        "model (name a provider/model ID to choose one)."
    )


def _files(root: Path, warnings: list[str]) -> list[tuple[str, Path]]:
    """(name, path) of every `.md` under `root`, byte-sorted; links to folders are not walked."""
    out: list[tuple[str, Path]] = []
    for dirpath, dirs, names in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirs[:] = sorted(d for d in dirs if len(rel.parts) < MAX_DEPTH - 1)
        for entry in sorted(names, key=os.fsencode):
            if not entry.endswith(".md"):
                continue
            parts = [*rel.parts, entry[:-3]]
            if not all(utf8_name(p) and _SEGMENT.match(p) for p in parts):
                shown = shown_name("/".join([*rel.parts, entry]))
                warnings.append(f"[flue] Skipping command file {shown!r} in {root}: its name cannot be a command.")
                continue
            out.append((":".join(parts), Path(dirpath) / entry))
            if len(out) >= MAX_FILES:
                warnings.append(f"[flue] Reading only the first {MAX_FILES} command files in {root}.")
                return out
    return out


def _scan(
    root: Path, source: CommandSource, into: CommandSet, roots: tuple[str, ...] | None, cwd: str
) -> list[ClaudeCommand]:
    found = []
    for name, path in _files(root, into.warnings):
        try:
            data = read_own(str(path), roots)
            # Judged by the bytes parsed: a file swapped after a hash must not pass as trusted.
            trusted = source == "user" or trust.judge(cwd, os.path.relpath(path, cwd), data) == "trusted"
            command = parse_command(data.decode("utf-8", "replace"), str(path), name, source, trusted)
            if command.model in CLAUDE_ALIASES:
                into.warnings.append(alias_warning("command", f"/{name}", command.model))
                command = replace(command, model=None)
            found.append(command)
        except OutsideRoots:
            into.warnings.append(f'[flue] Skipping the {source} command "/{name}": {path} links outside the project.')
        except (SkillFormatError, OSError) as exc:
            why = str(exc) if isinstance(exc, SkillFormatError) else f"{path}: {exc.strerror or exc}"
            why = " ".join(why.removeprefix("[flue] ").split())  # a YAML error's caret lines: one line
            into.warnings.append(f'[flue] Skipping the {source} command "/{name}": {why}')
    return found


def discover_commands(cwd: str, user_dir: Path | None, roots: tuple[str, ...] | None = None) -> CommandSet:
    """The project's first (a name clash hides the user's, with a warning), then the user's.
    A project's files are read beneath the project (and the workspace sandbox's roots when set)."""
    result = CommandSet()
    project_roots = roots or (os.path.realpath(cwd),)
    layers = [_scan(Path(cwd) / ".claude" / "commands", "project", result, project_roots, cwd)]
    if user_dir is not None:
        layers.append(_scan(user_dir, "user", result, None, cwd))
    seen: dict[str, ClaudeCommand] = {}
    for layer in layers:
        for command in layer:
            winner = seen.get(command.name)
            if winner is not None:
                result.warnings.append(
                    f'[flue] The {command.source} command "/{command.name}" is hidden by the {winner.source} '
                    f"command of the same name ({winner.path})."
                )
                continue
            seen[command.name] = command
            result.commands.append(command)
    return result
