"""Flue's tool names and arguments in Claude Code's spelling, and back: a hook written for Claude
Code matches `Bash`, reads `tool_input.command` / `file_path` / `old_string`, and may answer with
an `updatedInput` in that shape. Tools Claude Code does not have keep flue's name and arguments."""

from __future__ import annotations

import os
from typing import Any

# flue's name -> (Claude Code's name, {flue argument: Claude Code argument}).
_TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": ("Bash", {"command": "command", "timeout": "timeout"}),
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
    "todo_write": ("TodoWrite", {"todos": "todos"}),
    # A background command is Claude Code's Bash with run_in_background: a hook guarding Bash sees it.
    "bash_background": ("Bash", {"command": "command", "description": "description"}),
    "bash_output": ("BashOutput", {"id": "bash_id"}),
    "bash_kill": ("KillShell", {"id": "shell_id"}),
}
# Arguments Claude Code's shape has that flue's tool implies (dropped again on the way back).
_IMPLIED: dict[str, dict[str, Any]] = {"bash_background": {"run_in_background": True}}
# flue's general task agent is Claude Code's general-purpose one.
_AGENTS = {"flue-general": "general-purpose"}
# Claude Code's tools that are flue's under another name (an agent's `tools:` list names them).
_ALSO = {"MultiEdit": "edit"}
# Claude Code's Bash timeout is milliseconds; flue's is seconds.
_MS = {("bash", "timeout")}


def claude_name(tool: str) -> str:
    return _TOOLS[tool][0] if tool in _TOOLS else tool


# Claude Code 2.1 calls its Task tool Agent; a matcher may name either.
_ALIASES = {"task": ("Agent",)}


def flue_name(name: str) -> str:
    """The flue tool Claude Code's `name` is (`Bash` → `bash`, `Agent` → `task`); any other name is
    kept as written."""
    for tool, (claude, _args) in _TOOLS.items():
        if claude == name or name in _ALIASES.get(tool, ()):
            return tool
    return _ALSO.get(name, name)


def names(tool: str) -> tuple[str, ...]:
    """Every name a matcher may use for this tool: Claude Code's first, then flue's."""
    return tuple(dict.fromkeys([claude_name(tool), *_ALIASES.get(tool, ()), tool]))


def agent_names(agent: str) -> tuple[str, ...]:
    """A task agent's names for a SubagentStop matcher: Claude Code's first, then flue's."""
    return tuple(dict.fromkeys([_AGENTS.get(agent, agent), agent]))


def to_claude(tool: str, args: dict[str, Any], cwd: str | None = None) -> dict[str, Any]:
    """flue's arguments as Claude Code's `tool_input` (unknown ones keep their names). With `cwd`,
    `file_path` is absolute, as Claude Code's always is: a guard written for it that checks
    `file_path.startswith("/etc")` must not be passed `../../etc/passwd`."""
    mapping = _TOOLS.get(tool, ("", {}))[1]
    out: dict[str, Any] = {}
    for key, value in args.items():
        if (tool, key) in _MS and isinstance(value, int | float) and not isinstance(value, bool):
            value = value * 1000
        if cwd is not None and mapping.get(key) == "file_path" and isinstance(value, str) and "\0" not in value:
            value = os.path.normpath(os.path.join(cwd, os.path.expanduser(value)))
        out[mapping.get(key, key)] = value
    return {**out, **_IMPLIED.get(tool, {})}


def from_claude(tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A hook's `updatedInput` back in flue's argument names (flue's own names are accepted too)."""
    mapping = _TOOLS.get(tool, ("", {}))[1]
    back = {claude: flue for flue, claude in mapping.items()}
    out: dict[str, Any] = {}
    for key, value in tool_input.items():
        if key in _IMPLIED.get(tool, {}):
            continue
        name = back.get(key, key)
        if (tool, name) in _MS and isinstance(value, int | float) and not isinstance(value, bool):
            value = value / 1000
        out[name] = value
    return out


# flue's permission modes in Claude Code's words (`permission_mode` on every hook's stdin).
_MODES = {"ask": "default", "accept-edits": "acceptEdits", "plan": "plan", "yolo": "bypassPermissions"}


def claude_mode(mode: str) -> str:
    return _MODES.get(mode, mode)


def tool_response(tool: str, args: dict[str, Any], text: str, is_error: bool, cwd: str | None = None) -> dict[str, Any]:
    """PostToolUse's `tool_response`: flue's `output`/`is_error`, and the keys of Claude Code's own
    result a hook reads (Bash's `stdout`, the file tools' `filePath`, Edit's strings)."""
    out: dict[str, Any] = {"output": text, "is_error": is_error}
    if tool in ("bash", "bash_background"):
        out.update(stdout=text, stderr="", interrupted=False, isImage=False)
    elif tool in ("read", "write", "edit") and isinstance(args.get("path"), str):
        out.update(filePath=to_claude(tool, {"path": args["path"]}, cwd)["file_path"], success=not is_error)
        if tool == "write":
            out["content"] = args.get("content", "")
        elif tool == "edit":
            out.update(oldString=args.get("oldText", ""), newString=args.get("newText", ""))
            out["replaceAll"] = bool(args.get("replaceAll", False))
    return out
