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

import errno
import os
import re
import shlex
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar

from flue_tui.config import trust
from flue_tui.context.frontmatter import SkillFormatError, split_frontmatter
from flue_tui.core.files import OutsideRoots, read_own, read_own_at, shown_name, utf8_name, walk_dirs

T = TypeVar("T")

CommandSource = Literal["project", "user"]
_SEGMENT = r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$"  # one path part of a name: no spaces, no `:`
_PLACEHOLDER = r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$([1-9])"
MAX_DEPTH = 4  # namespaces nest this deep at most; deeper folders are not walked
MAX_FILES = 500  # a folder of thousands of files is a mistake, not a command set
# Claude Code's model aliases name Anthropic's current models; flue cannot know which one the user
# means on their provider, so the command or agent keeps the session's model and says so once.
CLAUDE_ALIASES = ("sonnet", "opus", "haiku", "opusplan")


@dataclass(frozen=True, slots=True)
class ClaudeCommand:
    """A Claude Code custom command (`.claude/commands/*.md`) as `/name` runs it."""

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
        if not re.search(_PLACEHOLDER, self.body):
            return f"{self.body}\n\nARGUMENTS: {args}" if args else self.body

        def put(match: re.Match[str]) -> str:
            if match.group(1) is not None:
                index = int(match.group(1))
            elif match.group(2) is not None:
                index = int(match.group(2)) - 1
            else:
                return args
            return words[index] if index < len(words) else ""

        return re.sub(_PLACEHOLDER, put, self.body)

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
    """The custom commands found, and one warning per file that was refused."""

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
        data, body = split_frontmatter(text, path, lenient=True, label="")
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


def _entries(top: int, root: Path, warnings: list[str]) -> Iterator[tuple[str, str, int, str]]:
    """(name, path, its directory's descriptor, file name) of every `.md` under the directory `top`,
    byte-sorted; os.fwalk opens each folder from its parent without following links, so a folder
    swapped for a link mid-walk is not entered, and a file opens relative to its folder."""
    count = 0
    for dirpath, dirs, names, dir_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
        rel = tuple(os.path.relpath(dirpath, ".").split(os.sep)) if dirpath != "." else ()
        dirs[:] = sorted((d for d in dirs if len(rel) < MAX_DEPTH - 1), key=os.fsencode)
        for entry in sorted(names, key=os.fsencode):
            if not entry.endswith(".md"):
                continue
            parts = [*rel, entry[:-3]]
            if not all(utf8_name(p) and re.match(_SEGMENT, p) for p in parts):
                shown = shown_name("/".join([*rel, entry]))
                warnings.append(f"[flue] Skipping command file {shown!r} in {root}: its name cannot be a command.")
                continue
            if count >= MAX_FILES:
                warnings.append(f"[flue] Reading only the first {MAX_FILES} command files in {root}.")
                return
            count += 1
            yield ":".join(parts), "/".join([*rel, entry]), dir_fd, entry


def _open_top(root: Path, cwd: str, project: bool) -> int | None:
    """The commands folder's descriptor: a project's opened from the project folder down, no link
    followed on the way (its files must lie inside it); the user's as the path leads."""
    if not project:
        try:
            return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return None
    base = os.open(cwd, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fds = walk_dirs(base, [".claude", "commands"], create=False)
    except FileNotFoundError:
        return None
    except OSError:  # `.claude` or `commands` is a link (or a file): what it leads to is not the project's
        raise OutsideRoots(errno.EXDEV, "a link", str(root)) from None
    finally:
        os.close(base)
    for fd in fds[:-1]:
        os.close(fd)
    return fds[-1]


def _scan(
    root: Path, source: CommandSource, into: CommandSet, roots: tuple[str, ...] | None, cwd: str
) -> list[ClaudeCommand]:
    found: list[ClaudeCommand] = []
    try:
        top = _open_top(root, cwd, source == "project")
    except OutsideRoots:
        into.warnings.append(f"[flue] Not reading the project's commands: {root} is reached through a link.")
        return found
    except OSError:
        return found
    if top is None:
        return found
    judged = trust.judge(cwd) if source == "project" else None
    try:
        for name, rel, dir_fd, entry in _entries(top, root, into.warnings):
            path = f"{root}/{rel}"
            try:
                try:
                    data = read_own_at(dir_fd, entry, path)
                except OSError as exc:
                    if exc.errno != errno.ELOOP:
                        raise
                    data = read_own(path, roots)  # a link: where it leads decides (inside, or refused)
                # Judged by the bytes parsed: a file swapped after a hash must not pass as trusted.
                trusted = judged is None or judged(f".claude/commands/{rel}", data) == "trusted"
                command = parse_command(data.decode("utf-8", "replace"), path, name, source, trusted)
                if command.model in CLAUDE_ALIASES:
                    into.warnings.append(alias_warning("command", f"/{name}", command.model))
                    command = replace(command, model=None)
                found.append(command)
            except OutsideRoots:
                into.warnings.append(
                    f'[flue] Skipping the {source} command "/{name}": {path} links outside the project.'
                )
            except (SkillFormatError, OSError) as exc:
                why = str(exc) if isinstance(exc, SkillFormatError) else f"{path}: {exc.strerror or exc}"
                why = " ".join(why.removeprefix("[flue] ").split())  # a YAML error's caret lines: one line
                into.warnings.append(f'[flue] Skipping the {source} command "/{name}": {why}')
    finally:
        os.close(top)
    return found


def discover_commands(cwd: str, user_dir: Path | None, roots: tuple[str, ...] | None = None) -> CommandSet:
    """The project's first (a name clash hides the user's, with a warning), then the user's.
    A project's files are read beneath the project (and the workspace sandbox's roots when set)."""
    result = CommandSet()
    project_roots = roots or (os.path.realpath(cwd),)  # for a linked file: it must lead inside
    layers = [_scan(Path(cwd) / ".claude" / "commands", "project", result, project_roots, cwd)]
    if user_dir is not None:
        layers.append(_scan(user_dir, "user", result, None, cwd))
    kept, hidden = first_wins(
        layers,
        lambda c: c.name,
        lambda c, w: (
            f'[flue] The {c.source} command "/{c.name}" is hidden by the {w.source} '
            f"command of the same name ({w.path})."
        ),
    )
    result.commands += kept
    result.warnings += hidden
    return result


def first_wins(
    layers: Iterable[Iterable[T]], name: Callable[[T], str], hidden: Callable[[T, T], str]
) -> tuple[list[T], list[str]]:
    """The first of each name across `layers` (an earlier layer wins), and for each one it hides
    the sentence `hidden(it, winner)`: skills and custom commands take precedence the same way."""
    seen: dict[str, T] = {}
    kept: list[T] = []
    notes: list[str] = []
    for layer in layers:
        for item in layer:
            winner = seen.get(name(item))
            if winner is not None:
                notes.append(hidden(item, winner))
                continue
            seen[name(item)] = item
            kept.append(item)
    return kept, notes
