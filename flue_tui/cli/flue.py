"""argv → TUI | print mode. Imports lazily so `flue --help` and `--version` stay fast."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from flue_tui import __version__

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings
    from flue_tui.headless.claude.flags import ClaudeOptions
    from flue_tui.runtime.start import SessionOptions

OUTPUT_FORMATS = ("text", "json", "stream-json", "events")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def _effort(text: str) -> str:
    from flue_tui.model.turn_params import check_effort  # no litellm import: only its constants later

    try:
        return check_effort(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _load_schema(value: str) -> dict:
    """`--json-schema` takes inline JSON or a path to a JSON file."""
    import json

    from flue_tui.config.errors import ConfigError
    from flue_tui.config.text import read_utf8_file

    text = value
    if not value.lstrip().startswith("{"):
        text = read_utf8_file(value, "--json-schema file")
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"--json-schema is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    if not isinstance(schema, dict):
        raise ConfigError("--json-schema must be a JSON object (a JSON Schema).")
    try:
        from jsonschema import SchemaError, validators

        validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise ConfigError(f"--json-schema is not a valid JSON Schema: {exc.message}") from None
    return schema


# Dispatched by main() before argparse (first word only); listed here so `flue --help` shows them.
SUBCOMMANDS = """subcommands (as the first word):
  flue sessions ...   list, show, search, rename, compact, export, import and delete saved sessions
  flue doctor         check the model, its key, the sandbox and the configuration
  flue trust ...      trust a project's .flue/config.toml and .mcp.json (--list, --forget)
  flue mcp ...        list, show, add and remove MCP servers
  flue worktree ...   list and remove the worktrees of `flue -w NAME`
  flue acp            serve the Agent Client Protocol on stdio (same as --acp)
Each has its own --help."""


def build_parser() -> argparse.ArgumentParser:
    from flue_tui.cli.flags import OneLineParser

    parser = OneLineParser(
        prog="flue",
        description="A terminal coding agent. `flue` opens the app in the current directory; "
        "`flue -p PROMPT` runs one prompt headless and prints the answer.",
        epilog=SUBCOMMANDS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("prompt", nargs="?", help="the prompt to send (with -p: read from stdin when omitted)")
    parser.add_argument(
        "-p",
        "--print",
        action="store_true",
        dest="print_mode",
        help="headless: run the prompt, print the result and exit",
    )
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="text",
        help="print mode output: text (final answer), json (one result object), "
        "stream-json (Claude Code's messages, one per line, result last), "
        "events (flue's own events, one per line, result last)",
    )
    parser.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="stream-json: also emit stream_event partials; events: text_delta, thinking_delta and tool_output",
    )
    parser.add_argument("--verbose", action="store_true", help="print mode: show progress on stderr")
    parser.add_argument(
        "--image",
        action="append",
        metavar="FILE",
        help="print mode: attach an image (PNG, JPEG, GIF, WebP); repeatable",
    )
    parser.add_argument("-m", "--model", help="model id as provider/model, e.g. anthropic/claude-sonnet-4-5")
    parser.add_argument("--max-turns", type=_positive_int, metavar="N", help="stop with an error after N model turns")
    parser.add_argument("--cwd", metavar="DIR", help="working directory for the agent (default: current)")
    parser.add_argument("--skill", metavar="NAME", help="run a skill; the prompt, if any, is added to it")
    parser.add_argument(
        "--system-prompt-file", metavar="FILE", help="replace flue's built-in instructions with this file's text"
    )
    parser.add_argument("--append-system-prompt", metavar="TEXT", help="add TEXT to the instructions")
    parser.add_argument(
        "--json-schema",
        metavar="SCHEMA",
        help="print mode: require a result matching this JSON Schema (a file or inline JSON); "
        "the validated object is the result's structured_output",
    )
    parser.add_argument(
        "--max-budget-usd", type=_positive_float, metavar="X", help="stop cleanly once the run's cost passes X dollars"
    )
    parser.add_argument(
        "--no-auto-compact",
        action="store_true",
        help="never compact automatically (overflow recovery and /compact still work)",
    )
    parser.add_argument("--compaction-model", metavar="MODEL", help="model that writes compaction summaries")
    parser.add_argument(
        "--context-window",
        type=_positive_int,
        metavar="TOKENS",
        help="the model's context window, for models litellm does not know",
    )
    parser.add_argument(
        "--effort", type=_effort, metavar="LEVEL", help="thinking effort: off, low, medium or high (default: off)"
    )
    parser.add_argument(
        "--max-output-tokens",
        type=_positive_int,
        metavar="TOKENS",
        help="the longest reply a turn may write (default: the model's limit, at most 32000)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="line-mode front end instead of the full-screen app (automatic on dumb terminals)",
    )
    parser.add_argument(
        "--inline",
        action="store_true",
        help="render into the terminal's own scrollback instead of the full-screen app "
        '(also [ui] mode = "inline" in config, or FLUE_UI=inline)',
    )
    parser.add_argument(
        "--acp",
        action="store_true",
        help="serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim) and Harbor",
    )
    parser.add_argument("--version", action="version", version=f"flue {__version__}")
    from flue_tui.cli.flags import (
        add_claude_arguments,
        add_mcp_arguments,
        add_permission_arguments,
        add_session_arguments,
    )

    add_session_arguments(parser)
    add_permission_arguments(parser)
    add_mcp_arguments(parser)
    add_claude_arguments(parser)
    return parser


def _read_prompt(args: argparse.Namespace, parser: argparse.ArgumentParser, required: bool = True) -> str:
    from flue_tui.config.errors import ConfigError
    from flue_tui.config.text import MAX_PROMPT_CHARS, prompt_problem, utf8_text

    # With a prompt argument stdin is never read: CI often leaves it open.
    if args.prompt is not None:
        prompt = args.prompt
    elif not sys.stdin.isatty():
        raw = sys.stdin.buffer.read(4 * MAX_PROMPT_CHARS + 1)  # UTF-8 is at most 4 bytes a character
        if len(raw) > 4 * MAX_PROMPT_CHARS:
            raise ConfigError(f"The prompt on stdin is longer than the {MAX_PROMPT_CHARS:,} characters flue sends.")
        prompt = utf8_text("The prompt on stdin", raw)
    else:
        prompt = ""
    problem = prompt_problem(prompt)
    if problem is not None:
        raise ConfigError(problem[0].upper() + problem[1:] + ".")
    if required and not prompt.strip():
        parser.error("print mode needs a prompt: pass it as an argument or pipe it on stdin")
    return prompt


def _enter_worktree(name: str, cwd: str | None) -> str:
    """`-w NAME`: the worktree's path, created when missing (a line on stderr says so)."""
    import os

    from flue_tui.runtime.worktree import enter, shown

    tree = enter(name, os.path.abspath(cwd or os.getcwd()))
    if tree.created:
        print(f"flue: created the worktree {shown(name)} at {shown(tree.path)} (branch {shown(name)})", file=sys.stderr)
    return tree.path


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BaseException as exc:  # only print mode installs the handler that raises Signalled
        if "flue_tui.headless.workers" not in sys.modules:
            raise  # the handler lives there: not imported (--help, --version), never installed
        from flue_tui.headless.workers import signalled

        stop = signalled(exc)
        if stop is None:
            raise
        from flue_tui.headless.printmode import stopped_during_start_up

        return stopped_during_start_up(stop.code, stop.fmt, stop.model)


SUBCOMMANDS_AT = {"sessions", "doctor", "mcp", "trust", "worktree"}


def _subcommand(name: str, rest: list[str]) -> int:
    if name == "sessions":
        from flue_tui.cli.sessions import main as sessions_main

        return sessions_main(rest)
    if name == "doctor":
        from flue_tui.cli.doctor import run_doctor

        return run_doctor(rest)
    if name == "mcp":
        from flue_tui.mcp.cli import main as mcp_main

        return mcp_main(rest)
    if name == "worktree":
        from flue_tui.cli.worktree import main as worktree_main

        return worktree_main(rest)
    from flue_tui.cli.trust import main as trust_main

    return trust_main(rest)


def _main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in SUBCOMMANDS_AT:  # only as the first word, so `flue -p sessions` stays a prompt
        return _subcommand(argv[0], argv[1:])
    if argv[:1] == ["acp"]:  # a mode, never a prompt (`flue -p acp` stays one)
        argv = ["--acp", *argv[1:]]
    parser = build_parser()
    args = parser.parse_args(argv)  # --help and --version end here, having imported only the CLI
    from flue_tui.core import classcode

    classcode.install()  # before the rest: every class defined from here on reuses its compiled methods
    from flue_tui.sandbox import procguard

    # Here, on the main thread before any other starts: a capability drop holds for the thread that
    # makes it and the threads it starts later, and the sandbox is built in a worker thread, whose
    # drop left the event loop's thread, which spawns every command, holding CAP_SYS_PTRACE.
    procguard.harden()
    if args.input_format == "stream-json":
        args.print_mode = True  # the Agent SDK never passes -p
    try:
        claude, sessions, overrides, permissions = _read_flags(args)
    except ValueError as exc:
        parser.error(str(exc))
    from flue_tui.config.errors import ConfigError

    fmt = args.output_format if args.print_mode else None
    if args.print_mode:  # a signal during start-up still ends with the result the format promises
        from flue_tui.headless.workers import stop_start_up_on_signals

        stop_start_up_on_signals(fmt, args.model)
    try:
        settings = _settings(args, claude, overrides, permissions)
        prompt = None
        if args.print_mode:  # with --input-format stream-json, stdin carries the conversation instead
            stream_in = claude.input_format == "stream-json"
            prompt = args.prompt if stream_in else _read_prompt(args, parser, required=not args.skill)
    except ConfigError as exc:
        from flue_tui.headless.printmode import start_failure

        return start_failure(str(exc), fmt, args.model)
    return _run(args, settings, prompt, sessions, claude)


def _read_flags(args: argparse.Namespace) -> tuple[ClaudeOptions, SessionOptions, dict[str, Any], dict[str, Any]]:
    """(print mode's Claude options, the session options, --settings overrides, the permission and
    MCP settings), each read where its setting lives. Raises ValueError: a usage error."""
    from flue_tui.headless.claude.flags import claude_options, ignored_flags
    from flue_tui.mcp.flags import mcp_settings
    from flue_tui.permissions.flags import permission_settings
    from flue_tui.runtime.start import options_from_args

    claude, overrides = claude_options(args)
    for line in ignored_flags(args):
        print(f"flue: {line}", file=sys.stderr)
    sessions = options_from_args(args, print_mode=args.print_mode)
    permissions = permission_settings(args)
    permissions.update(mcp_settings(args))
    if permissions["permission_mode"] is None:
        permissions["permission_mode"] = overrides.pop("permission_mode", None)
    overrides.pop("permission_mode", None)
    if args.plain and args.inline:
        raise ValueError("use either --plain or --inline, not both")
    if args.image and not args.print_mode:
        raise ValueError("--image goes with -p; in the app and inline mode attach an image with @path")
    if args.acp and args.worktree is not None:
        raise ValueError("--acp takes each session's directory from the client; it takes no --worktree")
    if args.acp and (args.print_mode or args.prompt is not None or args.plain or args.inline):
        raise ValueError("--acp serves a client on stdio: it takes no prompt, -p, --plain or --inline")
    return claude, sessions, overrides, permissions


def _settings(
    args: argparse.Namespace, claude: ClaudeOptions, overrides: dict[str, Any], permissions: dict[str, Any]
) -> Settings:
    """The run's Settings from the flags over the config files. Raises ConfigError."""
    from flue_tui.config.settings import Settings
    from flue_tui.config.text import utf8_text
    from flue_tui.headless.claude.flags import thinking_effort

    if args.prompt is not None:
        args.prompt = utf8_text("The prompt", args.prompt)
    if args.append_system_prompt is not None:
        args.append_system_prompt = utf8_text("--append-system-prompt", args.append_system_prompt)
    if args.worktree is not None:
        args.cwd = _enter_worktree(args.worktree, args.cwd)
    return Settings.from_env(
        model=args.model or overrides.get("model"),
        cwd=args.cwd,
        system_prompt=args.system_prompt,
        add_dirs=[*claude.add_dirs, *overrides.get("add_dirs", [])] or None,
        max_turns=args.max_turns,
        setting_sources=claude.setting_sources,
        system_prompt_file=args.system_prompt_file,
        append_system_prompt=args.append_system_prompt,
        json_schema=_load_schema(args.json_schema) if args.json_schema else None,
        max_budget_usd=args.max_budget_usd,
        auto_compact=False if args.no_auto_compact else None,
        compaction_model=args.compaction_model,
        context_window=args.context_window,
        effort=thinking_effort(args),
        max_output_tokens=args.max_output_tokens,
        settings_hooks=overrides.get("settings_hooks"),
        settings_permissions=overrides.get("settings_permissions"),
        sdk_hooks=claude.input_format == "stream-json",
        ui_mode="inline" if args.inline else ("plain" if args.plain else None),
        tools=claude.tools,
        fallback_model=args.fallback_model,
        **permissions,
    )


def _run(
    args: argparse.Namespace, settings: Settings, prompt: str | None, sessions: SessionOptions, claude: ClaudeOptions
) -> int:
    """The front end the flags and the terminal ask for: ACP, print mode, inline, plain or the app."""
    if args.acp:
        from flue_tui.acp.serve import run_acp

        return run_acp(settings, sessions)
    if args.print_mode:
        from flue_tui.headless.printmode import run_print

        return run_print(
            settings,
            prompt,
            fmt=args.output_format,
            verbose=args.verbose,
            partial=args.include_partial_messages,
            skill=args.skill,
            sessions=sessions,
            claude=claude,
            images=tuple(args.image or ()),
        )
    from flue_tui.model.route import beside

    if settings.ui_mode == "inline" and sys.stdin.isatty() and sys.stdout.isatty():
        beside(settings.model, settings.api_base, settings.transport)  # the HTTP client's own process
        from flue_tui.inline import run_inline

        return run_inline(settings, args.prompt, sessions=sessions)
    from flue_tui.tui.support import tui_supported

    if settings.ui_mode != "tui" or not tui_supported():
        from flue_tui.headless.plain import run_plain

        return run_plain(settings, args.prompt, sessions=sessions)
    beside(settings.model, settings.api_base, settings.transport)  # while Textual imports, on the other core
    from flue_tui.core.heap import hold_collections

    hold_collections()  # until the app's first session has started (core/heap.py), Textual's import included
    from flue_tui.tui.app import run_tui

    return run_tui(settings, args.prompt, sessions=sessions)


def entry() -> None:
    """The `flue` command (and `python -m flue_tui`): main(), then out at once, through exit_now,
    as signalled runs end: output flushed and the atexit handlers run, no interpreter teardown
    (about a second of garbage collection once litellm or the app is loaded). In-process tests
    call main() and never get here."""
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    workers = sys.modules.get("flue_tui.runtime.workers")  # loaded by every run; `--help` needs no more
    if workers is None:
        sys.exit(code)
    workers.exit_now(code)
