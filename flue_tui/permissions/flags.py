"""The permission and sandbox flags. Imported by cli/flue.py at startup: argparse only."""

from __future__ import annotations

import argparse
from typing import Any

MODE_CHOICES = ("ask", "accept-edits", "plan", "yolo")
SANDBOX_CHOICES = ("local", "workspace")
# Claude Code's names for the modes (its --permission-mode and the Agent SDK's set_permission_mode).
PERMISSION_MODES = {"default": "ask", "acceptEdits": "accept-edits", "plan": "plan", "bypassPermissions": "yolo"}
CLAUDE_MODE = {flue: claude for claude, flue in PERMISSION_MODES.items()}


def add_permission_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("permissions and sandbox")
    group.add_argument(
        "--permission-mode",
        choices=(*MODE_CHOICES, *PERMISSION_MODES),
        help="ask: write, edit and bash ask first (the app's default); accept-edits: only bash asks; "
        "plan: read-only; yolo: nothing asks (the default of -p). Print mode never waits: "
        "what would ask is refused and listed in permission_denials. Claude Code's names work too: "
        "default=ask, acceptEdits=accept-edits, plan, bypassPermissions=yolo",
    )
    group.add_argument(
        "--allowed-tools",
        "--allowedTools",
        action="append",
        metavar="RULES",
        default=[],
        help='tools or patterns that run without asking, e.g. "read,bash(git *)" (repeatable)',
    )
    group.add_argument(
        "--disallowed-tools",
        "--disallowedTools",
        action="append",
        metavar="RULES",
        default=[],
        help='tools or patterns that are always refused, e.g. "bash(rm *)" (repeatable)',
    )
    group.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        default=None,
        help="local: Flue's behaviour (default); workspace: paths must stay inside the working "
        "directory, bash commands are checked and run in bubblewrap when installed",
    )
    group.add_argument(
        "--allow-network", action="store_true", help="--sandbox workspace: let bash inside bubblewrap use the network"
    )
    group.add_argument(
        "--trust-project",
        action="store_true",
        help="for this run, apply what .flue/config.toml loosens (allow rules, "
        "default_blocklist = false, [env]) without asking; the app asks once and remembers",
    )


def permission_settings(args: argparse.Namespace) -> dict[str, Any]:
    """Settings overrides from the flags (None leaves a setting at its default)."""
    from flue_tui.permissions.rules import RuleError, parse_rules

    try:  # a malformed rule is a usage error, reported before anything starts
        parse_rules([*args.allowed_tools, *args.disallowed_tools])
    except RuleError as exc:
        raise ValueError(str(exc)) from None
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
