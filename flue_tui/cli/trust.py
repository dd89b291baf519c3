"""`flue trust`: trust a directory's .flue/config.toml without opening the app (for headless use),
list the trusted directories, or forget one."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="flue trust",
        description="Let a project's .flue/config.toml loosen protection (allow rules, default_blocklist = "
        "false, [env]) and its .mcp.json start MCP servers in later runs, until the file changes. "
        "Without --yes it shows what and asks.",
    )
    parser.add_argument("directory", nargs="?", default=".", help="the project directory (default: current)")
    parser.add_argument("--yes", action="store_true", help="trust without asking")
    parser.add_argument("--list", action="store_true", help="list the trusted directories")
    parser.add_argument("--forget", action="store_true", help="stop trusting the directory")
    return parser


def main(argv: list[str]) -> int:
    from flue_tui.config import trust
    from flue_tui.permissions.project import accept, ask_on_terminal, pending

    args = _parser().parse_args(argv)
    directory = os.path.abspath(args.directory)
    try:
        if args.list:
            for entry in trust.entries():
                files = ", ".join(f for f, _ in entry.files) or "no files"
                print(f"{entry.directory}  ({files}, since {entry.trusted_at})")
            return 0
        if args.forget:
            forgotten = trust.revoke(directory)
            print(
                f"Forgot {trust.directory_key(directory)}."
                if forgotten
                else f"{trust.directory_key(directory)} was not trusted."
            )
            return 0
        settings = Settings.from_env(cwd=directory)
        asked = pending(settings)
        if asked is None:
            print(
                f"Nothing to trust: {directory} has no project settings that loosen protection"
                + (", or they are trusted already." if settings.project_trusted else ".")
            )
            return 0
        if not args.yes and not (sys.stdin.isatty() and asyncio.run(ask_on_terminal(asked))):
            print(
                "Not trusted." if sys.stdin.isatty() else "Not trusted: pass --yes to trust without a terminal.",
                file=sys.stderr,
            )
            return 1
        accept(settings, asked)
    except ConfigError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 2
    print(f"Trusted {asked.path}: {', '.join(h.key for h in asked.held)} now apply.")
    return 0
