"""The session flags of the agent commands. Imported while the parser is built, so `flue --help`
and `--version` pay for argparse only; checking and acting on the flags is runtime/start.py's job."""

from __future__ import annotations

import argparse

PICK = "\x00pick"  # the value of a bare `--resume`: let the front end offer a picker


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sessions")
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
        const=PICK,
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
