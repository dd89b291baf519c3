"""argv → TUI | print mode. Imports lazily so `flue --help` and `--version` stay fast."""

from __future__ import annotations

import argparse
import sys

from flue_tui import __version__

OUTPUT_FORMATS = ("text", "json", "stream-json")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flue",
        description="A terminal coding agent. `flue` opens the app in the current directory; "
                    "`flue -p PROMPT` runs one prompt headless and prints the answer.",
    )
    parser.add_argument("prompt", nargs="?", help="the prompt to send (with -p: read from stdin when omitted)")
    parser.add_argument("-p", "--print", action="store_true", dest="print_mode",
                        help="headless: run the prompt, print the result and exit")
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="print mode output: text (final answer), json (one result object), "
                             "stream-json (one JSON event per line, result last)")
    parser.add_argument("--include-partial-messages", action="store_true",
                        help="stream-json: also emit text_delta, thinking_delta and tool_output events")
    parser.add_argument("--verbose", action="store_true", help="print mode: show progress on stderr")
    parser.add_argument("-m", "--model", help="model id as provider/model, e.g. anthropic/claude-sonnet-4-5")
    parser.add_argument("--max-turns", type=_positive_int, metavar="N",
                        help="stop with an error after N model turns")
    parser.add_argument("--cwd", metavar="DIR", help="working directory for the agent (default: current)")
    parser.add_argument("--skill", metavar="NAME", help="run a skill; the prompt, if any, is added to it")
    parser.add_argument("--system-prompt-file", metavar="FILE",
                        help="replace flue's built-in instructions with this file's text")
    parser.add_argument("--append-system-prompt", metavar="TEXT", help="add TEXT to the instructions")
    parser.add_argument("--version", action="version", version=f"flue {__version__}")
    from flue_tui.session_start import add_session_arguments

    add_session_arguments(parser)
    return parser


def _read_prompt(args: argparse.Namespace, parser: argparse.ArgumentParser, required: bool = True) -> str:
    # With a prompt argument stdin is never read: CI often leaves it open.
    if args.prompt is not None:
        prompt = args.prompt
    elif not sys.stdin.isatty():
        prompt = sys.stdin.read()
    else:
        prompt = ""
    if required and not prompt.strip():
        parser.error("print mode needs a prompt: pass it as an argument or pipe it on stdin")
    return prompt


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sessions"]:  # only as the first word, so `flue -p sessions` stays a prompt
        from flue_tui.sessions_cli import main as sessions_main

        return sessions_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    from flue_tui.session_start import options_from_args

    try:
        sessions = options_from_args(args, print_mode=args.print_mode)
    except ValueError as exc:
        parser.error(str(exc))
    from flue_tui.config import ConfigError, Settings

    try:
        settings = Settings.from_env(model=args.model, cwd=args.cwd, max_turns=args.max_turns,
                                     system_prompt_file=args.system_prompt_file,
                                     append_system_prompt=args.append_system_prompt)
    except ConfigError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 2
    if args.print_mode:
        from flue_tui.headless import run_print

        prompt = _read_prompt(args, parser, required=not args.skill)
        return run_print(settings, prompt, fmt=args.output_format, verbose=args.verbose,
                         partial=args.include_partial_messages, skill=args.skill, sessions=sessions)
    from flue_tui.plain import run_plain

    return run_plain(settings, args.prompt, sessions=sessions)


def entry() -> None:
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)
