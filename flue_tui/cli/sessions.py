"""`flue sessions list | show | rename | delete | export | import | compact | search`, and
`checkpoints | diff | rewind` (sessions_rewind.py).

cli/flue.py hands over only when argv[0] is exactly "sessions", so `flue -p sessions` is still a prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from flue_tui.cli import sessions_rewind as rewinding
from flue_tui.store.db import StoreError, friendly_errors
from flue_tui.store.sessions import SessionStore


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
    common.add_argument("--db", metavar="PATH", help="the session database (default: ~/.local/share/flue/sessions.db)")
    common.add_argument("--cwd", metavar="DIR", help="act as if run in DIR (default: current directory)")
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="flue sessions",
        description="Saved sessions: list, read, name, delete, "
        "export and search them. NAME is a session name in this directory or an id.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("list", parents=[common], allow_abbrev=False, help="this directory's sessions, newest first")
    p.add_argument("--all", action="store_true", help="sessions of every directory")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--limit", type=_count, default=50, metavar="N", help="show at most N (0: all; default 50)")
    p = sub.add_parser("show", parents=[common], allow_abbrev=False, help="print a session's transcript")
    p.add_argument("ref", metavar="NAME")
    p.add_argument("--last", type=_count, metavar="N", help="only the last N messages")
    p = sub.add_parser("rename", parents=[common], allow_abbrev=False, help="name (or rename) a session")
    p.add_argument("ref", metavar="OLD")
    p.add_argument("new_name", metavar="NEW")
    p = sub.add_parser("delete", parents=[common], allow_abbrev=False, help="delete a session, its tasks and messages")
    p.add_argument("ref", metavar="NAME")
    p = sub.add_parser("export", parents=[common], allow_abbrev=False, help="write a session as Markdown or JSON")
    p.add_argument("ref", metavar="NAME")
    p.add_argument("--format", choices=("md", "json"), default="md")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (never overwritten) instead of stdout")
    p = sub.add_parser("import", parents=[common], allow_abbrev=False, help="add sessions exported with --format json")
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE|DIR",
        help="JSON exports, directories of them (every *.json inside), - for standard input; "
        "sessions already here are skipped",
    )
    p = sub.add_parser("compact", parents=[common], allow_abbrev=False, help="summarise a session's older messages now")
    p.add_argument("ref", metavar="NAME")
    p.add_argument("focus", nargs="*", help="what the summary should keep in detail")
    p.add_argument("-m", "--model", help="the model that writes the summary (default: the session's)")
    p = sub.add_parser("search", parents=[common], allow_abbrev=False, help="full-text search over every saved message")
    p.add_argument("query", nargs="+", metavar="QUERY", help="words that must all appear in a message")
    p.add_argument("--here", action="store_true", help="only this directory's sessions")
    p.add_argument("--limit", type=_count, default=20, metavar="N", help="at most N messages (default 20)")
    p.add_argument("--json", action="store_true", help="print JSON")
    rewinding.add_parsers(sub, common)
    return parser


def _list(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    from flue_tui.cli.sessions_view import list_json, render_list

    where = None if args.all else (cwd, *_worktree_dirs(cwd))
    infos = store.list_sessions(where, limit=args.limit or None)
    if args.json:
        sys.stdout.write(list_json(infos, {i.id: store.tree_usage(i.id) for i in infos}))
        return 0
    total = store.count_sessions(where) if args.limit and len(infos) == args.limit else len(infos)
    # A worktree session's directory is not this one: the column says where each one runs.
    wide = "all" if args.all else any(i.cwd != cwd for i in infos)
    render_list(infos, sys.stdout, all_dirs=wide, total=total, cwd=cwd)
    return 0


def _worktree_dirs(cwd: str) -> tuple[str, ...]:
    """The directories of the worktree sessions (`flue -w`) of the repository `cwd` is the top of:
    listed with its own sessions. Outside a repository (or without git) there are none."""
    from flue_tui.runtime.worktree import WorktreeError, listed

    if not os.path.isdir(os.path.join(cwd, ".git")):
        return ()  # only a repository's top (git is not run for every other directory listed)
    try:
        return tuple(t.path for t in listed(cwd))
    except WorktreeError:
        return ()


def _show(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    from flue_tui.ui.sessions_show import show

    show(store, store.require(args.ref, cwd), last=args.last or None)
    return 0


def _rename(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    info = store.require(args.ref, cwd)
    renamed = store.rename(info.id, args.new_name)
    print(f'Renamed {info.label} ({info.id}) to "{renamed.name}".')
    return 0


def _delete(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    info = store.require(args.ref, cwd)
    if info.id != args.ref and not (info.name == args.ref and info.cwd == cwd):
        # Prefixes and other directories' names are fine for reading, not for deleting.
        raise StoreError(f"To delete {info.label}, give its full id: flue sessions delete {info.id}")
    from flue_tui.store.lock import acquire

    # Not from under a running writer: its next message would find no session to belong to.
    lock = acquire(store.path, info.id, label=f'Session "{info.label}"', ref=args.ref, owner="flue sessions delete")
    try:
        count = store.delete(info.id)
    finally:
        if lock is not None:
            lock.release()
    rewinding.forget(info)
    print(f"Deleted session {info.label} ({info.id}) and its {count} messages.")
    return 0


def _export(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    from flue_tui.permissions.secrets import Redactor
    from flue_tui.store.export import to_json, to_markdown

    info = store.require(args.ref, cwd)
    # Values of *_KEY / *_TOKEN / *_SECRET variables never leave in an export: each stored string is
    # cleaned before it is encoded, and the encoded text once more (any escaped form left over).
    redact = Redactor(os.environ)
    if args.format == "json":
        data = to_json(store, info, redact)
        data["checkpoints"] = rewinding.export_rows(
            store, info
        )  # which commit each message started from, no file contents
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        text = to_markdown(store, info, redact)
    text = redact(text)
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise StoreError(f"{args.output} already exists; choose another file name.") from None
    except OSError as exc:
        raise StoreError(f"Cannot write {args.output}: {exc.strerror or exc}.") from None
    print(f"Exported {info.label} to {args.output}.", file=sys.stderr)
    return 0


def _search(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    from flue_tui.cli.sessions_view import render_search, search_json

    query = " ".join(args.query)
    hits = store.search(query, cwd=cwd if args.here else None, limit=args.limit or 20)
    if args.json:
        sys.stdout.write(search_json(hits))
    else:
        render_search(hits, sys.stdout, query=query)
    return 0


def _import(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    from flue_tui.cli.sessions_import import import_all

    return import_all(store, args.files)


def _compact(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    from flue_tui.cli.sessions_compact import compact_stored

    return compact_stored(store, store.require(args.ref, cwd), focus=" ".join(args.focus) or None, model=args.model)


COMMANDS: dict[str, Callable[[SessionStore, argparse.Namespace, str], int]] = {
    "list": _list,
    "show": _show,
    "rename": _rename,
    "delete": _delete,
    "export": _export,
    "search": _search,
    "import": _import,
    "compact": _compact,
    "checkpoints": rewinding.checkpoints,
    "diff": rewinding.diff,
    "rewind": rewinding.rewind,
}


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv or ["list"])  # `flue sessions` alone lists them
    cwd = os.path.abspath(os.path.expanduser(args.cwd or os.getcwd()))
    if not os.path.isdir(cwd):
        what = "is not a directory" if os.path.exists(cwd) else "does not exist"
        print(f"flue: Working directory {what}: {cwd}", file=sys.stderr)
        return 2
    try:
        store = SessionStore.open(args.db)
    except StoreError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 1
    if store.problem is not None:  # nothing to list, show or change: say why, not "no sessions"
        store.close()
        print(f"flue: {store.problem}", file=sys.stderr)
        return 1
    for notice in store.notices:
        print(f"flue: {notice}", file=sys.stderr)
    try:
        with friendly_errors(store.path):
            return COMMANDS[args.command](store, args, cwd)
    except StoreError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `flue sessions list | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        store.close()
