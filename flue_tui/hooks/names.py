"""Flue's tool names and arguments in Claude Code's spelling, and back: a hook written for Claude
Code matches `Bash`, reads `tool_input.command` / `file_path` / `old_string`, and may answer with
an `updatedInput` in that shape. Tools Claude Code does not have keep flue's name and arguments."""

from __future__ import annotations

from typing import Any

# flue's name -> (Claude Code's name, {flue argument: Claude Code argument}).
_TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": ("Bash", {"command": "command", "timeout": "timeout"}),
    # Claude Code's Bash with run_in_background: a hook guarding Bash guards this one too.
    "bash_background": ("Bash", {"command": "command", "description": "description"}),
    "read": ("Read", {"path": "file_path", "offset": "offset", "limit": "limit"}),
    "write": ("Write", {"path": "file_path", "content": "content"}),
    "edit": (
        "Edit",
        {"path": "file_path", "oldText": "old_string", "newText": "new_string", "replaceAll": "replace_all"},
    ),
    "grep": ("Grep", {"pattern": "pattern", "path": "path", "include": "glob"}),
    "glob": ("Glob", {"pattern": "pattern", "path": "path"}),
    "task": ("Task", {"description": "description", "prompt": "prompt", "agent": "subagent_type"}),
    "activate_skill": ("Skill", {"name": "skill"}),
}
# Claude Code's Bash timeout is milliseconds; flue's is seconds.
_MS = {("bash", "timeout")}
# Arguments Claude Code's spelling adds: shown to a hook, never read back from its updatedInput.
_ADDED: dict[str, dict[str, Any]] = {"bash_background": {"run_in_background": True}}


def claude_name(tool: str) -> str:
    return _TOOLS[tool][0] if tool in _TOOLS else tool


def names(tool: str) -> tuple[str, ...]:
    """Every name a matcher may use for this tool: Claude Code's first, then flue's."""
    return tuple(dict.fromkeys([claude_name(tool), tool]))


def to_claude(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """flue's arguments as Claude Code's `tool_input` (unknown ones keep their names)."""
    mapping = _TOOLS.get(tool, ("", {}))[1]
    out: dict[str, Any] = {}
    for key, value in args.items():
        if (tool, key) in _MS and isinstance(value, int | float) and not isinstance(value, bool):
            value = value * 1000
        out[mapping.get(key, key)] = value
    return {**out, **_ADDED.get(tool, {})}


def from_claude(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A hook's `updatedInput` back in flue's argument names (flue's own names are accepted too)."""
    mapping = _TOOLS.get(tool, ("", {}))[1]
    back = {claude: flue for flue, claude in mapping.items()}
    out: dict[str, Any] = {}
    for key, value in tool_input.items():
        if key in _ADDED.get(tool, {}):
            continue
        name = back.get(key, key)
        if (tool, name) in _MS and isinstance(value, int | float) and not isinstance(value, bool):
            value = value / 1000
        out[name] = value
    return out
