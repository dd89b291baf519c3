"""Permission rules: `bash`, `Read`, `bash(git *)`, `bash(git diff:*)`, `edit(src/*)`.

A rule names a tool (case-insensitive, so Claude Code's `Bash(...)` spelling works) and optionally
a shell-style pattern over the call's subject, the argument the tool's traits name (core/traits.py):
the command for bash, the path for file tools, resolved against the cwd when it is a path argument.
`*` matches any characters, `/` and spaces included; a trailing ` *` or `:*` also matches the bare
prefix (`git *` matches `git`). Bash commands are split into simple commands first: an allow rule
must cover every one of them (so `git status; rm -rf x` is not allowed by `bash(git *)`), a deny
rule fires when it matches any one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from flue_tui.core.traits import ToolTraits

# The shell reader (permissions/shell.py, scope.py: ~5 ms of modules) is imported by the functions
# that read a command, at the first bash call they judge: parsing the rules at a session's start,
# before its first token, needs none of it.
if TYPE_CHECKING:
    from flue_tui.permissions.shell import Reading, SimpleCommand

# A file a call reads or writes outside its tool's own arguments (a shell redirection, an `@path`
# attachment), judged by the `write`/`read` rules as those tools' path argument is.
FILE_PATH = ToolTraits(paths=("path",))
_RULE = r"(?s)^\s*([A-Za-z_][\w*-]*|\*)\s*(?:\((.*)\))?\s*$"
_SUBCOMMAND = r"^[a-z][\w:.-]*$"
# Programs whose second word picks what they do: their session prefix keeps it (`git status`, not `git`).
SUBCOMMAND_TOOLS = frozenset(
    "git npm pnpm yarn bun deno cargo go uv uvx pip pip3 poetry pdm hatch tox nox docker podman kubectl helm gh "
    "make just dotnet mvn gradle terraform brew conda rustup".split()
)
# Subcommands that run a program or script named by the next word: the session rule keeps it too
# (`npm run test`, `uv run pytest`), so one answer does not allow every script.
RUNNER_SUBCOMMANDS = frozenset("run exec x dlx".split())
RUNNER_PROGRAMS = frozenset("npx pnpx bunx uvx pipx".split())  # `npx eslint` → `npx eslint`, not `npx`
PYTHONS = r"^python(\d+(\.\d+)?)?$"


class RuleError(ValueError):
    """A malformed rule; the message names it."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A permission rule: the tool it names, and the pattern over the call's subject, if any."""

    tool: str  # lower-case tool name, or "*" for every tool
    pattern: str | None  # None: the whole tool
    text: str  # as written, quoted back in refusals

    def covers_tool(self, tool_name: str, *, deny: bool = True) -> bool:
        # A `*` in the name is a glob over tool names: `mcp__github__*` is every tool of that server.
        name = tool_name.lower()
        if self.tool.startswith("mcp__") and name.startswith("mcp__") and not deny:
            # An MCP server's name is exact: the user's `mcp__github` does not allow a project's
            # `GitHub` server (a deny rule still reads without case: it may only tighten).
            rule, name = "mcp__" + self.text.split("(", 1)[0].strip()[5:], "mcp__" + tool_name[5:]
        else:
            rule = self.tool
        if rule in ("*", name) or ("*" in rule and fnmatchcase(name, rule)):
            return True
        # `mcp__github` alone: every tool of that MCP server, as Claude Code reads it. Server names
        # have no `__` (mcp/config.py), so the prefix names one server.
        return rule.startswith("mcp__") and rule.count("__") == 1 and name.startswith(rule + "__")


def parse_rule(text: str) -> Rule:
    m = re.match(_RULE, text)
    if m is None or (m.group(2) is not None and not m.group(2).strip()):
        raise RuleError(
            f'Invalid permission rule "{text}": expected a tool name, optionally with a '
            f'pattern in parentheses, e.g. bash or "bash(git *)".'
        )
    pattern = m.group(2).strip() if m.group(2) is not None else None
    if pattern in ("*", "**"):
        pattern = None  # bash(*) is the whole tool
    return Rule(m.group(1).lower(), pattern, text.strip())


def split_rule_list(value: str) -> list[str]:
    """`--allowed-tools "read,bash(git *) edit"` → three rules: commas and spaces outside parentheses."""
    out, buf, depth = [], [], 0
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if "".join(buf).strip():
                out.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    if "".join(buf).strip():
        out.append("".join(buf).strip())
    return out


def parse_rules(values: Iterable[str]) -> list[Rule]:
    return [parse_rule(text) for value in values for text in split_rule_list(value)]


def _glob(pattern: str, subject: str) -> bool:
    if pattern.endswith(":*"):
        pattern = pattern[:-2] + " *"
    if pattern.endswith(" *") and subject == pattern[:-2]:
        return True
    return fnmatchcase(subject, pattern)


def _path_subjects(path: str, base: str, root: str, *, strict: bool) -> list[str]:
    full = os.path.normpath(os.path.join(base, path))
    subjects = [full]
    rel = os.path.relpath(full, root)
    if not rel.startswith(".."):
        subjects.append(rel)
    if not strict:
        subjects.append(path)  # deny rules also see the path as written
    return subjects


def matches(
    rules: Iterable[Rule],
    tool_name: str,
    args: dict[str, Any],
    *,
    traits: ToolTraits,
    base: str,
    root: str,
    deny: bool,
) -> Rule | None:
    """The first rule that allows (deny=False) or denies (deny=True) this call, or None."""
    rules = [r for r in rules if r.covers_tool(tool_name, deny=deny)]
    if not rules:
        return None
    for rule in rules:
        if rule.pattern is None:
            return rule
    subject = traits.subject_of(args)
    if subject is None:
        return None
    if traits.shell:
        from flue_tui.permissions.shell import read_command

        reading = read_command(subject)
        return _bash_deny(rules, reading) if deny else _bash_allow(rules, reading)
    subjects = _path_subjects(subject, base, root, strict=not deny) if traits.subject_is_path else [subject]
    for rule in rules:
        if rule.pattern and any(_glob(rule.pattern, s) for s in subjects):
            return rule
    return None


def redirect_targets(traits: ToolTraits, args: dict[str, Any]) -> tuple[str, ...]:
    """The files a bash command's redirections write (`> out.txt`), judged like the write tool's paths."""
    command = traits.subject_of(args) if traits.shell else None
    if command is None:
        return ()
    from flue_tui.permissions.scope import after_cd
    from flue_tui.permissions.shell import read_command

    reading = read_command(command)
    return after_cd(reading, reading.writes)


def _bash_glob(pattern: str, subject: str) -> bool:
    """Commands are matched after quote removal, so a rule written with quotes (`bash(echo 'a b')`)
    is read the same way."""
    return _glob(pattern, subject) or (
        ("'" in pattern or '"' in pattern) and _glob(pattern.replace("'", "").replace('"', ""), subject)
    )


def unseen_by_deny(
    rules: Iterable[Rule], tool_name: str, traits: ToolTraits, args: dict[str, Any]
) -> tuple[Rule, str] | None:
    """A bash deny pattern and why it cannot be checked, when the command is unclear: such a command
    must not run unasked, since the deny rule cannot see what it runs."""
    command = traits.subject_of(args) if traits.shell else None
    if command is None:
        return None
    rule = next((r for r in rules if r.covers_tool(tool_name) and r.pattern), None)
    if rule is None:
        return None
    from flue_tui.permissions.shell import read_command

    unclear = read_command(command).unclear
    return (rule, unclear[0]) if rule is not None and unclear else None


def _bash_deny(rules: list[Rule], reading: Reading) -> Rule | None:
    for command in reading.commands:
        for subject in command.deny_subjects():
            for rule in rules:
                if rule.pattern and _bash_glob(rule.pattern, subject):
                    return rule
    return None


def _bash_allow(rules: list[Rule], reading: Reading) -> Rule | None:
    """A rule for every command that needs one, and nothing unclear; a command of harmless parts
    only (`true`, `x=1`) is allowed by any bash rule."""
    if reading.unclear:
        return None
    chosen = rules[0]
    for command in reading.needs_rules:
        hit = next((r for r in rules if r.pattern and _bash_glob(r.pattern, command.text) and _names(r, command)), None)
        if hit is None:
            return None
        chosen = hit
    return chosen


def _names(rule: Rule, command: SimpleCommand) -> bool:
    """A git alias is allowed only by a rule that spells it out: `bash(git co *)`, not `bash(git *)`."""
    named = command.only_named
    return named is None or rule.pattern == named or (rule.pattern or "").startswith((named + " ", named + ":"))


def command_prefix(command: SimpleCommand) -> str:
    """`git status --short` → `git status`; `ls -la` → `ls`; `python -m pytest -q` → `python -m pytest`;
    `npm run test` → `npm run test`: what "allow for this session" remembers."""
    if command.only_named:
        return command.only_named
    words = [w for w in command.argv if w != "…"]
    if not words:
        return ""
    prog = words[0].rsplit("/", 1)[-1]
    if re.match(PYTHONS, prog) and len(words) > 2 and words[1] == "-m" and re.match(_SUBCOMMAND, words[2]):
        return " ".join(words[:3])
    if len(words) > 1 and prog in RUNNER_PROGRAMS and re.match(_SUBCOMMAND, words[1]):
        return f"{words[0]} {words[1]}"
    if len(words) > 1 and prog in SUBCOMMAND_TOOLS and re.match(_SUBCOMMAND, words[1]):
        if words[1] in RUNNER_SUBCOMMANDS and len(words) > 2 and re.match(_SUBCOMMAND, words[2]):
            return " ".join(words[:3])
        return f"{words[0]} {words[1]}"
    return words[0]


def session_rules_for(tool_name: str, traits: ToolTraits, args: dict[str, Any]) -> list[str]:
    """The rules an "allow for this session" answer adds: for bash, one per program the command
    actually runs (`for i in $(seq 3); do echo $i; done 2>&1` → `bash(seq *)`, `bash(echo *)`), and
    none when the command is unclear, since no rule could allow it."""
    command = traits.subject_of(args) if traits.shell else None
    if command is not None:
        from flue_tui.permissions.shell import read_command

        reading = read_command(command)
        if reading.unclear:
            return []
        prefixes = dict.fromkeys(command_prefix(c) for c in reading.needs_rules)
        return [f"{tool_name}({p} *)" for p in prefixes if p]
    if traits.kind == "edit":
        # One answer covers file changes, like Claude Code's accept-edits: the file tools and this one.
        return list(dict.fromkeys(["write", "edit", tool_name]))
    return [tool_name]
