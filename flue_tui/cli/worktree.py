"""`flue worktree list | remove NAME`: the worktrees `flue -w NAME` made (runtime/worktree.py).

cli/flue.py hands over only when argv[0] is exactly "worktree", so `flue -p worktree` is still a prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from flue_tui.runtime.worktree import WorktreeError, changes, listed, remove, shown


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(allow_abbrev=False, add_help=False)
    common.add_argument("--cwd", metavar="DIR", help="act as if run in DIR (default: current directory)")
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog="flue worktree",
        description="The git worktrees of `flue -w NAME`, kept in <repo>.worktrees/ beside the repository.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("list", parents=[common], allow_abbrev=False, help="this repository's worktree sessions")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = sub.add_parser(
        "remove",
        parents=[common],
        allow_abbrev=False,
        help="remove a worktree (refused while it has uncommitted changes; its branch stays)",
    )
    p.add_argument("name", metavar="NAME")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    cwd = os.path.abspath(args.cwd or os.getcwd())
    try:
        if args.command == "list":
            return _list(cwd, args.json)
        gone = remove(args.name, cwd)
    except WorktreeError as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 1
    branch = (
        f"; its branch {shown(gone.branch)} stays (git branch -d {shown(gone.branch)} deletes it)"
        if gone.branch
        else ""
    )
    print(f"Removed the worktree {shown(gone.name)} ({shown(gone.path)}){branch}.")
    return 0


def _list(cwd: str, as_json: bool) -> int:
    trees = listed(cwd)
    rows = []
    for tree in trees:
        try:
            dirty = changes(tree.path)
            state = f"{len(dirty)} changed" if dirty else "clean"
        except WorktreeError:
            state = "missing"  # deleted by hand: git worktree prune forgets it
        rows.append({"name": tree.name, "branch": tree.branch, "path": tree.path, "state": state})
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return 0
    if not rows:
        print("No worktree sessions in this repository (flue -w NAME makes one).")
        return 0
    name_w = max(len("NAME"), *(len(shown(r["name"])) for r in rows))
    branch_w = max(len("BRANCH"), *(len(shown(r["branch"] or "(detached)")) for r in rows))
    print(f"{'NAME':<{name_w}}  {'BRANCH':<{branch_w}}  {'STATE':<10}  PATH")
    for r in rows:
        branch = shown(r["branch"] or "(detached)")
        print(f"{shown(r['name']):<{name_w}}  {branch:<{branch_w}}  {r['state']:<10}  {shown(r['path'])}")
    return 0
