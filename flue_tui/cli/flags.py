"""The flags of `flue`, as argparse definitions: what `flue --help` shows and what argv parses
into. Imported while the parser is built, so `flue --help` and `--version` import nothing beyond
flue_tui.cli (tests/test_cli_print.py checks it). What a flag's value means is decided after
parsing, where the setting lives: runtime/start.options_from_args (sessions),
permissions/flags.permission_settings (modes, rules, sandbox: the values are checked there, so the
mode names stay in one place), mcp/flags.mcp_settings, headless/claude/flags.claude_options."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn


class OneLineParser(argparse.ArgumentParser):
    """Never expands prefixes (`--system-prompt` is not `--system-prompt-file`), and a usage
    error is one line on stderr, exit 2, not a usage block."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


class _Resume(argparse.Action):
    """`--resume NAME|ID` resumes that session; a bare `--resume` sets `pick` (the front end offers
    a picker), so no sentinel value has to be shared with the code that reads the flags."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, _: str | None = None
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.pick = values is None


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sessions")
    parser.set_defaults(pick=False)
    group.add_argument("--session", metavar="NAME", help="create, or resume, the session named NAME in this directory")
    group.add_argument(
        "-c",
        "--continue",
        action="store_true",
        dest="continue_last",
        help="continue the most recent session of this directory",
    )
    group.add_argument(
        "-r",
        "--resume",
        nargs="?",
        action=_Resume,
        metavar="NAME|ID",
        help="resume a session by name or id (without a value: pick one, in the app)",
    )
    group.add_argument(
        "--fork-session",
        action="store_true",
        help="with --resume/--continue/--session: continue from a copy, leaving the original as it was",
    )
    group.add_argument(
        "-w",
        "--worktree",
        metavar="NAME",
        help="run in the git worktree NAME beside the repository (on branch NAME; created when missing), "
        "in the session named NAME",
    )
    group.add_argument("--no-session-persistence", action="store_true", help="do not save this run's session")
    group.add_argument("--db", metavar="PATH", help="the session database (default: ~/.local/share/flue/sessions.db)")


def add_permission_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("permissions and sandbox")
    group.add_argument(
        "--permission-mode",
        metavar="MODE",
        help="ask (the default): write, edit and bash ask first, read-only commands run; accept-edits: "
        "only bash asks; plan: read-only; yolo: nothing asks. Print mode never waits: what would ask "
        "is refused and listed in permission_denials. Claude Code's names work too: "
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
        metavar="SANDBOX",
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


def add_mcp_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("MCP servers")
    group.add_argument(
        "--mcp-config",
        action="append",
        metavar="FILE|JSON",
        default=[],
        help='MCP servers from a file or inline JSON in .mcp.json\'s format ({"mcpServers": {...}}); repeatable',
    )
    group.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the --mcp-config servers, ignoring config.toml and .mcp.json",
    )


def add_claude_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Claude Code compatibility (claude -p and the Claude Agent SDK)")
    group.add_argument(
        "--system-prompt", metavar="TEXT", help="replace flue's built-in instructions with TEXT (may be empty)"
    )
    group.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        default="text",
        help="print mode input: text (the prompt) or stream-json (user messages and control "
        "requests as JSON lines on stdin, one session over many turns)",
    )
    group.add_argument(
        "--dangerously-skip-permissions", action="store_true", help="same as --permission-mode yolo (bypassPermissions)"
    )
    group.add_argument(
        "--session-id", metavar="UUID", help="use this id: a new session with it, or that session resumed"
    )
    group.add_argument(
        "--add-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="another directory the tools may use (with --sandbox workspace: contained too)",
    )
    group.add_argument(
        "--fallback-model", metavar="MODEL", help="model to use when the main one is overloaded or unavailable"
    )
    group.add_argument(
        "--settings",
        metavar="FILE|JSON",
        help="Claude Code settings (a file or inline JSON): model, permissions.allow/deny/defaultMode",
    )
    group.add_argument(
        "--setting-sources",
        metavar="SOURCES",
        help="comma-separated user,project,local: which config files are read "
        "(user = ~/.config/flue/config.toml, project/local = .flue/config.toml)",
    )
    group.add_argument(
        "--tools", metavar="TOOLS", help='the built-in tools offered: "" none, "default" all, or e.g. "Bash,Read,Edit"'
    )
    group.add_argument(
        "--permission-prompt-tool",
        metavar="TOOL",
        help='"stdio": with --input-format stream-json, ask the Agent SDK\'s can_use_tool callback '
        "whenever a call needs approval",
    )
    group.add_argument(
        "--max-thinking-tokens", type=int, metavar="N", help="thinking budget in tokens (picks an --effort level)"
    )
    group.add_argument(
        "--thinking",
        choices=("adaptive", "enabled", "disabled"),
        help="disabled: no thinking (--effort off); adaptive/enabled: the effort configured",
    )
    # Claude Code's options flue has nothing to map onto: accepted (an SDK script passes them),
    # ignored with one line on stderr (ignored_flags), never a usage error.
    group.add_argument("--thinking-display", metavar="MODE", help="accepted and ignored (Claude Code's display)")
    group.add_argument("--betas", metavar="BETAS", help="accepted and ignored: flue sends no Anthropic beta headers")
    group.add_argument(
        "--plugin-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="accepted and ignored: flue does not load Claude Code plugins",
    )
    group.add_argument(
        "--replay-user-messages", action="store_true", help="stream-json input: echo each user message back on stdout"
    )
