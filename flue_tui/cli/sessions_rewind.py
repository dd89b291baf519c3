"""`flue sessions checkpoints | diff | rewind`: a session's file checkpoints, headless.

Checkpoint N is the workspace just before the session's Nth user message ran (runtime/checkpointing.py
takes them). A code rewind snapshots the workspace before touching a file and pushes that on the
session's undo stack (checkpoints/stack.py), so `--undo` puts back what the rewind replaced, a
rewind killed half-way included, and repeated `--undo`s walk back (`--redo` forward). A rewind that
would remove or overwrite files the session's own tool calls did not write (checkpoints/claims.py)
names them and needs `--force`. A conversation rewind never deletes history: it forks the session just before message N.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from flue_tui.checkpoints import FileCheckpoints, GitFailed, GitMissing, Restored, stack
from flue_tui.runtime.checkpointing import files_for
from flue_tui.store.db import StoreError
from flue_tui.store.sessions import SessionStore
from flue_tui.store.values import SessionInfo, UserPrompt, local_time
from flue_tui.ui.transcript import CONTROL_RE


def _number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a message number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"message numbers start at 1, got {value}")
    return value


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "checkpoints",
        parents=[common],
        allow_abbrev=False,
        help="a session's file checkpoints: one before each user message",
    )
    p.add_argument("ref", metavar="NAME")
    p.add_argument("--json", action="store_true", help="print JSON")
    p = sub.add_parser("diff", parents=[common], allow_abbrev=False, help="what a turn changed on disk")
    p.add_argument("ref", metavar="NAME")
    p.add_argument("--turn", type=_number, metavar="N", help="the turn of user message N (default: the last)")
    p = sub.add_parser(
        "rewind",
        parents=[common],
        allow_abbrev=False,
        help="go back to just before user message N: files, conversation (a fork) or both",
    )
    p.add_argument("ref", metavar="NAME")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--to", type=_number, metavar="N", help="the user message to go back to (from 1)")
    target.add_argument(
        "--undo", action="store_true", help="put back the files the last code rewind replaced (again: the one before)"
    )
    target.add_argument("--redo", action="store_true", help="re-apply the last code rewind --undo put back")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--code", dest="what", action="store_const", const="code", help="restore the files only")
    what.add_argument(
        "--conversation", dest="what", action="store_const", const="conversation", help="fork the conversation only"
    )
    what.add_argument("--both", dest="what", action="store_const", const="both", help="both (the default)")
    p.add_argument(
        "--force",
        action="store_true",
        help="also remove or overwrite files the session's own turns did not leave (they are named first)",
    )


def _root(store: SessionStore, ref: str, cwd: str) -> SessionInfo:
    info = store.require(ref, cwd)
    if info.parent_id is not None:
        raise StoreError(f"{info.id} is a task inside session {info.parent_id}; its checkpoints are that session's.")
    return info


def _files(info: SessionInfo) -> FileCheckpoints:
    if not os.path.isdir(info.cwd):
        raise StoreError(f"The directory of session {info.label}, {info.cwd}, no longer exists.")
    return files_for(info.cwd)


def _prompt(prompts: list[UserPrompt], n: int, info: SessionInfo) -> UserPrompt:
    if not prompts:
        raise StoreError(f"Session {info.label} has no user messages yet, so there is nothing to go back to.")
    if n > len(prompts):
        raise StoreError(
            f"Session {info.label} has {len(prompts)} user message{'s' * (len(prompts) != 1)}; "
            f"choose N from 1 to {len(prompts)}."
        )
    return prompts[n - 1]


def _visible(text: str) -> str:
    """Stored text (an imported session's too) on a terminal: control bytes shown, never obeyed."""
    return CONTROL_RE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _first_line(text: str, width: int = 70) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return _visible(line if len(line) <= width else line[: width - 1] + "…")


def rows(store: SessionStore, info: SessionInfo, files: FileCheckpoints) -> list[dict[str, Any]]:
    """One row per user message: its checkpoint and the files its turn changed (the last turn: up to now)."""
    prompts = store.user_prompts(info.id)
    found = files.numbered(info.id)
    now: str | None = None
    out: list[dict[str, Any]] = []
    for p in prompts:
        commit = found.get(p.number)
        changed: list[dict[str, str]] | None = None
        if commit is not None:
            after = found.get(p.number + 1)
            if after is None and p.number == len(prompts):
                now = now or files.snapshot(None, "now").commit
                after = now
            if after is not None:
                changed = [{"status": c.status, "path": c.path} for c in files.diff(commit, after)]
        out.append(
            {
                "message": p.number,
                "time": p.created_at,
                "prompt": p.text,
                "checkpoint": commit,
                "files_changed": changed,
            }
        )
    return out


def checkpoints(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    info = _root(store, args.ref, cwd)
    table = _guarded(lambda: rows(store, info, _files(info)))
    if args.json:
        sys.stdout.write(
            json.dumps({"session_id": info.id, "cwd": info.cwd, "checkpoints": table}, indent=2, ensure_ascii=False)
            + "\n"
        )
        return 0
    if not table:
        print(f"Session {info.label} has no user messages yet.")
        return 0
    print(f"{'N':>3}  {'time':<16}  {'files':>5}  prompt")
    for row in table:
        files = "-" if row["files_changed"] is None else str(len(row["files_changed"]))
        print(f"{row['message']:>3}  {local_time(row['time']):<16}  {files:>5}  {_first_line(row['prompt'])}")
    print(
        f"\nGo back to just before message N with: flue sessions rewind {args.ref} --to N "
        "(files and conversation; --code or --conversation for one). '-': no file checkpoint."
    )
    return 0


def diff(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    info = _root(store, args.ref, cwd)
    prompts = store.user_prompts(info.id)
    n = args.turn or len(prompts)
    _prompt(prompts, n, info)

    def run() -> str:
        files = _files(info)
        found = files.numbered(info.id)
        if n not in found:
            raise StoreError(f"No file checkpoint was taken before message {n} of session {info.label}.")
        after = found.get(n + 1) or files.snapshot(None, "now").commit
        return files.patch(found[n], after)

    text = _guarded(run)
    sys.stdout.write(text if text else f"Turn {n} of session {info.label} changed no files.\n")
    return 0


def rewind(store: SessionStore, args: argparse.Namespace, cwd: str) -> int:
    info = _root(store, args.ref, cwd)
    what = args.what or "both"
    from flue_tui.store.lock import acquire

    # Not under a running agent: its next write would land on the files we put back.
    lock = acquire(store.path, info.id, label=f'Session "{info.label}"', ref=args.ref, owner="flue sessions rewind")
    try:
        if args.undo or args.redo:
            _guarded(lambda: _step(info, args.ref, "redo" if args.redo else "undo", args.force))
            return 0
        prompts = store.user_prompts(info.id)
        chosen = _prompt(prompts, args.to, info)
        if what in ("code", "both"):
            _guarded(lambda: _restore(info, args.to, args.ref, args.force))
        if what in ("conversation", "both"):
            _fork(store, info, chosen)
    finally:
        if lock is not None:
            lock.release()
    return 0


def _names(paths: tuple[str, ...] | list[str], most: int = 10) -> str:
    shown = _visible(", ".join(paths[:most]))
    return shown + (f" and {len(paths) - most} more" if len(paths) > most else "")


def _checked(done: Restored, info: SessionInfo) -> Restored:
    if not done.applied:
        n = len(done.foreign)
        raise StoreError(
            f"Nothing was changed: this would remove or overwrite {n} file{'s' * (n != 1)} that session "
            f"{info.label}'s own turns did not leave (another session's, or edits since): {_names(done.foreign)}. "
            "Run it again with --force to go ahead (--undo puts them back)."
        )
    return done


def _report(done: Restored, ref: str) -> None:
    if done.foreign:
        print(f"Also replaced (not left by this session's turns): {_names(done.foreign)}")
    if done.not_restored:
        shown = [f"{p} ({why})" for p, why in done.not_restored]
        print(f"Not restored: {_names(shown)}")
    print(f"Undo this with: flue sessions rewind {ref} --undo")


def _restore(info: SessionInfo, n: int, ref: str, force: bool) -> None:
    files = _files(info)
    done = stack.rewind(files, info.id, n, force=force)
    if done is None:
        raise StoreError(
            f"No file checkpoint was taken before message {n} of session {info.label} (git was "
            "missing or checkpoints were off); rewind the conversation only with --conversation."
        )
    _checked(done, info)
    print(
        f"Files in {info.cwd} are back to just before message {n}: {len(done.written)} written, "
        f"{len(done.removed)} removed."
    )
    _report(done, ref)


def _step(info: SessionInfo, ref: str, which: str, force: bool) -> None:
    files = _files(info)
    done = (stack.redo if which == "redo" else stack.undo)(files, info.id, force=force)
    if done is None:
        raise StoreError(f"Session {info.label} has no code rewind to {which}.")
    _checked(done, info)
    left = stack.depth(files, info.id, stack.UNDO if which == "undo" else stack.REDO)
    said = "before the last rewind" if which == "undo" else "the undone rewind left them"
    print(
        f"Files in {info.cwd} are back as {said}: {len(done.written)} written, {len(done.removed)} removed. "
        f"{left} more {which}{'s' * (left != 1)} left; --{'redo' if which == 'undo' else 'undo'} goes the other way."
    )
    if done.foreign:
        print(f"Also replaced (not left by this session's turns): {_names(done.foreign)}")
    if done.not_restored:
        print(f"Not restored: {_names([f'{p} ({why})' for p, why in done.not_restored])}")


def _fork(store: SessionStore, info: SessionInfo, chosen: UserPrompt) -> None:
    fork = store.fork(info.id, before_seq=chosen.seq, title=f"{info.label} (rewound to message {chosen.number})")
    from flue_tui.runtime.checkpointing import disabled_reason

    if disabled_reason(info.cwd) is None:
        try:
            files_for(info.cwd).copy(info.id, fork.id, below=chosen.number)
        except (GitMissing, GitFailed, OSError, ValueError):
            pass  # the fork works without them
    print(f"Conversation forked just before message {chosen.number} as {fork.id} ({info.label} stays as it was).")
    print(f"Continue it with: flue --resume {fork.id}")
    print(f"Message {chosen.number} was:")
    print(_visible(chosen.text))


def _guarded(fn: Any) -> Any:
    """Git and file problems as one sentence."""
    try:
        return fn()
    except GitMissing as exc:
        raise StoreError(str(exc)) from None
    except GitFailed as exc:
        raise StoreError(f"The checkpoint store failed: {exc}") from None
    except OSError as exc:
        raise StoreError(f"Cannot restore {exc.filename or 'the files'}: {exc.strerror or exc}.") from None
    except ValueError as exc:  # an imported session's id that cannot name a checkpoint
        raise StoreError(f"This session has no file checkpoints ({exc}).") from None


def forget(info: SessionInfo) -> None:
    """`flue sessions delete`: the session's checkpoints go with it (the objects when git next prunes)."""
    try:
        files_for(info.cwd).delete(info.id)
    except (GitMissing, GitFailed, OSError, ValueError):
        pass


def export_rows(store: SessionStore, info: SessionInfo) -> list[dict[str, Any]]:
    """Checkpoint metadata for a JSON export (never file contents): per user message, its commit."""
    try:
        found = files_for(info.cwd).numbered(info.id) if os.path.isdir(info.cwd) else {}
    except (GitMissing, GitFailed, OSError, ValueError):
        found = {}
    return [
        {"message": p.number, "time": p.created_at, "checkpoint": found.get(p.number)}
        for p in store.user_prompts(info.id)
    ]
