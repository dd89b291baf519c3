"""What Claude Code's flags mean in flue (their argparse definitions: cli/flags.py): its tool
names, its settings, its options for print mode, checked after parsing."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import Any

from flue_tui.permissions.flags import PERMISSION_MODES

# Claude Code's permission modes → flue's (ours keep working; both are accepted by --permission-mode).
# Claude Code's built-in tool names → flue's (Flue's names are what the model sees; these are aliases).
TOOL_NAMES = {
    "bash": "bash",
    "read": "read",
    "write": "write",
    "edit": "edit",
    "multiedit": "edit",
    "glob": "glob",
    "grep": "grep",
    "task": "task",
    "agent": "task",
    "skill": "activate_skill",
    "activate_skill": "activate_skill",
    "todowrite": "todo_write",
    "todo_write": "todo_write",
    "bash_background": "bash_background",
    "bashoutput": "bash_output",
    "bash_output": "bash_output",
    "killshell": "bash_kill",
    "killbash": "bash_kill",
    "bash_kill": "bash_kill",
}
SETTING_SOURCES = ("user", "project", "local")


def ignored_flags(args: argparse.Namespace) -> list[str]:
    """One line for each Claude Code flag given that flue accepts and does not act on."""
    lines = []
    if getattr(args, "betas", None):
        lines.append(f"--betas {args.betas} is ignored: flue sends no Anthropic beta headers.")
    for directory in getattr(args, "plugin_dir", None) or []:
        lines.append(f"--plugin-dir {directory} is ignored: flue does not load Claude Code plugins.")
    return lines


def thinking_effort(args: argparse.Namespace) -> str | None:
    """--effort, else --thinking disabled (off), else --max-thinking-tokens N; None: the configured one."""
    if getattr(args, "effort", None):
        return args.effort
    if getattr(args, "thinking", None) == "disabled":
        return "off"
    return effort_for_budget(getattr(args, "max_thinking_tokens", None))


def effort_for_budget(tokens: int | None) -> str | None:
    """--max-thinking-tokens N as flue's effort, whose Anthropic budgets are litellm's 1024/2048/4096."""
    if tokens is None:
        return None
    if tokens <= 0:
        return "off"
    return "low" if tokens <= 1024 else "medium" if tokens <= 2048 else "high"


def check_session_id(value: str | None) -> str | None:
    if value is None:
        return None
    import uuid  # not at the top: `flue --help` imports this module, and uuid brings platform

    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise ValueError(f"--session-id must be a UUID, got {value!r}") from None


def tool_filter(value: str | None) -> set[str] | None:
    """--tools: None keeps every tool; otherwise the flue names offered. Raises ValueError."""
    if value is None or value.strip() == "default":
        return None
    names = {n.strip() for n in value.replace(" ", ",").split(",") if n.strip()}
    unknown = sorted(n for n in names if n.lower() not in TOOL_NAMES)
    if unknown:
        known = ", ".join(sorted(set(TOOL_NAMES.values())))
        raise ValueError(f"--tools: unknown tool {unknown[0]!r} (flue has {known})")
    return {TOOL_NAMES[n.lower()] for n in names}


def setting_sources(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    sources = tuple(s.strip() for s in value.split(",") if s.strip())
    for source in sources:
        if source not in SETTING_SOURCES:
            raise ValueError(f"--setting-sources: unknown source {source!r} (choose from user, project, local)")
    return sources


def _json_or_file(flag: str, value: str) -> Any:
    import json  # not at the top: `flue --help` imports this module

    text = value
    if not value.lstrip().startswith(("{", "[")):
        try:
            with open(os.path.expanduser(value), encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise ValueError(f"cannot read {flag} file {value}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{flag} is not valid JSON ({exc.msg} at line {exc.lineno})") from None


def claude_settings(value: str | None) -> dict[str, Any]:
    """--settings: the parts flue can honour (model, permissions), as Settings overrides."""
    if value is None:
        return {}
    data = _json_or_file("--settings", value)
    if not isinstance(data, dict):
        raise ValueError("--settings must be a JSON object")
    out: dict[str, Any] = {}
    if isinstance(data.get("model"), str):
        out["model"] = data["model"]
    if "hooks" in data:  # checked, with the other sources, by flue_tui/hooks/config.py
        out["settings_hooks"] = data["hooks"]
    perms = data.get("permissions")
    if isinstance(perms, dict):
        rules: dict[str, list[str]] = {}
        for key in ("allow", "deny", "ask"):
            value = perms.get(key)
            if value is not None:
                if not isinstance(value, list) or not all(isinstance(r, str) for r in value):
                    raise ValueError(f"--settings: permissions.{key} must be a list of rules")
                rules[key] = list(value)
        if rules:  # mapped from Claude Code's syntax with its files' rules (permissions/claude.py)
            out["settings_permissions"] = rules
        extra = perms.get("additionalDirectories")
        if extra is not None:
            if not isinstance(extra, list) or not all(isinstance(d, str) and os.path.isdir(d) for d in extra):
                raise ValueError("--settings: permissions.additionalDirectories must be a list of directories")
            out["add_dirs"] = [os.path.abspath(d) for d in extra]
        mode = perms.get("defaultMode")
        if mode is not None:
            if mode not in PERMISSION_MODES:
                raise ValueError(f"--settings: unknown permissions.defaultMode {mode!r}")
            out["permission_mode"] = PERMISSION_MODES[mode]
    return out


# Here, not beside print mode's run: every `flue` reads its flags, and run.py imports the whole agent
# (~0.2 s of CPU) that the app only needs after its first frame.
@dataclass(frozen=True, slots=True)
class ClaudeOptions:
    """What the Claude Code flags ask of print mode (flags that map onto Settings are already there)."""

    input_format: str = "text"
    tools: frozenset[str] | None = None  # None: every built-in tool
    permission_prompt_tool: str | None = None
    replay_user_messages: bool = False
    add_dirs: tuple[str, ...] = ()
    effort: str | None = None
    max_thinking_tokens: int | None = None
    setting_sources: tuple[str, ...] | None = None


def claude_options(args: argparse.Namespace) -> tuple[ClaudeOptions, dict[str, Any]]:
    """(ClaudeOptions for print mode, Settings overrides from --settings). Raises ValueError."""
    if args.input_format == "stream-json" and args.output_format != "stream-json":
        raise ValueError("--input-format stream-json needs --output-format stream-json")
    if args.system_prompt is not None and args.system_prompt_file:
        raise ValueError("use either --system-prompt or --system-prompt-file, not both")
    if args.fallback_model is not None and args.fallback_model == args.model:
        raise ValueError("--fallback-model must differ from --model")
    tool = args.permission_prompt_tool
    if tool is not None and tool != "stdio":
        raise ValueError(
            f"--permission-prompt-tool {tool}: MCP tools are not supported yet; "
            "use stdio (the Agent SDK's can_use_tool)"
        )
    if tool == "stdio" and args.input_format != "stream-json":
        raise ValueError("--permission-prompt-tool stdio needs --input-format stream-json")
    for directory in args.add_dir:
        if not os.path.isdir(os.path.expanduser(directory)):
            raise ValueError(f"--add-dir {directory}: no such directory")
    args.session_id = check_session_id(args.session_id)
    tools = tool_filter(args.tools)
    options = ClaudeOptions(
        input_format=args.input_format,
        tools=frozenset(tools) if tools is not None else None,
        permission_prompt_tool=tool,
        replay_user_messages=args.replay_user_messages,
        add_dirs=tuple(os.path.abspath(os.path.expanduser(d)) for d in args.add_dir),
        effort=getattr(args, "effort", None),
        max_thinking_tokens=getattr(args, "max_thinking_tokens", None),
        setting_sources=setting_sources(args.setting_sources),
    )
    return options, claude_settings(args.settings)
