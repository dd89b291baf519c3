"""Permission rules: `bash`, `Read`, `bash(git *)`, `bash(git diff:*)`, `edit(src/*)`.

A rule names a tool (case-insensitive, so Claude Code's `Bash(...)` spelling works) and optionally
a shell-style pattern over the call's subject: the command for bash, the path for file tools.
`*` matches any characters, `/` and spaces included; a trailing ` *` or `:*` also matches the bare
prefix (`git *` matches `git`). Bash commands are split into simple commands first: an allow rule
must cover every one of them (so `git status; rm -rf x` is not allowed by `bash(git *)`), a deny
rule fires when it matches any one.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

# The argument a pattern is matched against, per tool.
SUBJECT_KEYS = {"bash": "command", "read": "path", "write": "path", "edit": "path", "grep": "path",
                "glob": "path", "task": "agent", "activate_skill": "name", "read_skill_resource": "path"}
PATH_TOOLS = frozenset({"read", "write", "edit", "grep", "glob"})
_RULE = re.compile(r"^\s*([A-Za-z_][\w*-]*|\*)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=\S*\s+")
_WRAPPER = re.compile(r"^(?:sudo|doas|env|exec|nohup|command|builtin|time|nice|xargs)\s+(?:-\S+\s+)*")
_SUBCOMMAND = re.compile(r"^[a-z][\w:.-]*$")
# Programs whose second word picks what they do: their session prefix keeps it (`git status`, not `git`).
SUBCOMMAND_TOOLS = frozenset(
    "git npm pnpm yarn bun deno cargo go uv uvx pip pip3 poetry pdm hatch tox nox docker podman kubectl helm gh "
    "make just dotnet mvn gradle terraform brew conda rustup".split())


class RuleError(ValueError):
    """A malformed rule; the message names it."""


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str  # lower-case tool name, or "*" for every tool
    pattern: str | None  # None: the whole tool
    text: str  # as written, quoted back in refusals

    def covers_tool(self, tool_name: str) -> bool:
        # A `*` in the name is a glob over tool names: `mcp__github__*` is every tool of that server.
        return self.tool in ("*", tool_name.lower()) or ("*" in self.tool and fnmatchcase(tool_name.lower(), self.tool)) \
            or (self.tool.startswith("mcp__") and self.tool.count("__") == 1  # `mcp__github`: the whole server
                and tool_name.lower().startswith(self.tool + "__"))


def parse_rule(text: str) -> Rule:
    m = _RULE.match(text)
    if m is None or (m.group(2) is not None and not m.group(2).strip()):
        raise RuleError(f'Invalid permission rule "{text}": expected a tool name, optionally with a '
                        f'pattern in parentheses, e.g. bash or "bash(git *)".')
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


def split_commands(command: str) -> list[str]:
    """The simple commands of a shell line: split on ; & | newlines and (sub)shell brackets, with
    `$(...)` and backtick contents as commands of their own; quotes respected."""
    segments: list[str] = []
    stack: list[list[str]] = [[]]  # one buffer per open substitution
    closers: list[str] = []  # what ends each open substitution: ")" or "`"
    quotes: list[str] = []  # the quote state outside each open substitution
    quote = ""
    i = 0

    def cut() -> None:
        text = "".join(stack[-1]).strip().lstrip("{(!").rstrip("})").strip()
        if text:
            segments.append(text)
        stack[-1].clear()

    while i < len(command):
        ch = command[i]
        if ch == "\\" and quote != "'" and i + 1 < len(command):
            stack[-1].append(command[i:i + 2])
            i += 2
            continue
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif closers and quote == "" and ch == closers[-1]:
            cut()
            stack.pop()
            closers.pop()
            quote = quotes.pop()
            i += 1
            continue
        elif command.startswith("$(", i) or ch == "`":
            closers.append(")" if ch == "$" else "`")
            quotes.append(quote)
            quote = ""
            stack.append([])
            i += 2 if ch == "$" else 1
            continue
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif ch in ";&|\n(){}":
            cut()
            i += 1
            continue
        stack[-1].append(ch)
        i += 1
    while stack:
        cut()
        stack.pop()
    return segments


def _unwrapped(segment: str) -> str:
    """Drop leading VAR=value assignments and wrappers (sudo, env...) so deny rules see the command."""
    prev = None
    while prev != segment:
        prev = segment
        segment = _WRAPPER.sub("", _ASSIGNMENT.sub("", segment))
    return segment


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


def matches(rules: Iterable[Rule], tool_name: str, args: dict[str, Any], *, base: str, root: str,
            deny: bool) -> Rule | None:
    """The first rule that allows (deny=False) or denies (deny=True) this call, or None."""
    rules = [r for r in rules if r.covers_tool(tool_name)]
    if not rules:
        return None
    for rule in rules:
        if rule.pattern is None:
            return rule
    subject = args.get(SUBJECT_KEYS.get(tool_name.lower(), "path"))
    if not isinstance(subject, str):
        return None
    if tool_name.lower() == "bash":
        segments = split_commands(subject) or [subject.strip()]
        if deny:
            for seg in segments:
                for rule in rules:
                    if rule.pattern and (_glob(rule.pattern, seg) or _glob(rule.pattern, _unwrapped(seg))):
                        return rule
            return None
        chosen = None
        for seg in segments:
            chosen = next((r for r in rules if r.pattern and _glob(r.pattern, seg)), None)
            if chosen is None:
                return None
        return chosen
    subjects = (_path_subjects(subject, base, root, strict=not deny) if tool_name.lower() in PATH_TOOLS
                else [subject])
    for rule in rules:
        if rule.pattern and any(_glob(rule.pattern, s) for s in subjects):
            return rule
    return None


def command_prefix(segment: str) -> str:
    """`git status --short` → `git status`; `ls -la` → `ls`; `echo hi` → `echo`: what "allow for this
    session" remembers."""
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    if not words:
        return segment
    if len(words) > 1 and words[0] in SUBCOMMAND_TOOLS and _SUBCOMMAND.match(words[1]):
        return f"{words[0]} {words[1]}"
    return words[0]


def session_rules_for(tool_name: str, kind: str, args: dict[str, Any]) -> list[str]:
    """The rules an "allow for this session" answer adds."""
    if tool_name == "bash" and isinstance(args.get("command"), str):
        prefixes = dict.fromkeys(command_prefix(s) for s in split_commands(args["command"]))
        return [f"bash({p} *)" for p in prefixes if p] or ["bash"]
    if kind == "edit":
        return ["write", "edit"]  # one answer covers file changes, like Claude Code's accept-edits
    return [tool_name]
