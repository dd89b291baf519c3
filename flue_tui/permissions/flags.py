"""What the permission and sandbox flags mean (their argparse definitions: cli/flags.py): the
mode names, Claude Code's spellings of them, and the settings the flags give."""

from __future__ import annotations

import argparse
from typing import Any

MODE_CHOICES = ("ask", "accept-edits", "plan", "yolo")
SANDBOX_CHOICES = ("local", "workspace")
# Claude Code's names for the modes (its --permission-mode and the Agent SDK's set_permission_mode).
PERMISSION_MODES = {"default": "ask", "acceptEdits": "accept-edits", "plan": "plan", "bypassPermissions": "yolo"}
CLAUDE_MODE = {flue: claude for claude, flue in PERMISSION_MODES.items()}


def permission_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Settings overrides from the flags (None leaves a setting at its default)."""
    rules = [*args.allowed_tools, *args.disallowed_tools]
    if rules:  # the rules' modules (the shell reader, the sandbox's paths) only when there are rules
        from flue_tui.permissions.rules import RuleError, parse_rules

        try:  # a malformed rule is a usage error, reported before anything starts
            parse_rules(rules)
        except RuleError as exc:
            raise ValueError(str(exc)) from None
    _choice("--permission-mode", args.permission_mode, tuple(dict.fromkeys((*MODE_CHOICES, *PERMISSION_MODES))))
    _choice("--sandbox", args.sandbox, SANDBOX_CHOICES)
    return {
        "permission_mode": permission_mode(args),  # Claude Code's spellings mapped to flue's modes
        "interactive": not args.print_mode,
        "allowed_tools": list(args.allowed_tools) or None,
        "disallowed_tools": list(args.disallowed_tools) or None,
        "sandbox": args.sandbox,
        "allow_network": True if args.allow_network else None,
        "trust_project": True if args.trust_project else None,
    }


def permission_mode(args: argparse.Namespace) -> str | None:
    """flue's mode for --permission-mode (either spelling) and --dangerously-skip-permissions."""
    if getattr(args, "dangerously_skip_permissions", False):
        return "yolo"
    mode = args.permission_mode
    return PERMISSION_MODES.get(mode, mode) if mode is not None else None


def _choice(flag: str, value: str | None, choices: tuple[str, ...]) -> None:
    """argparse's own sentence for a value it does not know (the CLI exits 2 with it)."""
    if value is not None and value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise ValueError(f"argument {flag}: invalid choice: {value!r} (choose from {shown})")
