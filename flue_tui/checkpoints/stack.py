"""A session's code rewinds as a stack, so no rewind, undo or redo ever loses a state.

Each step restores a checkpoint through `FileCheckpoints.restore_with`, which snapshots the
workspace before touching any file; that snapshot is pushed first (`<session>/undos/<k>` for a
rewind or redo, `<session>/redos/<k>` for an undo) with the checkpoint it restores (`…-target`),
and the state the step left is kept beside it once it has finished (`…-after`). So a step killed half-way leaves its undo point on top; a second rewind pushes a new
point instead of replacing the first; repeated undos walk back. A popped point goes only once its
restore finished: an undo killed half-way is run again by the next undo.

Which files are the session's is what its own tool calls wrote (each turn's claims, `own-<n>`,
claims.py) and what its steps put back (each step's target, where it differs from its point),
unless another session's claims make that doubtful (owners.py reads every session's): anything
else a step would remove or overwrite is named, and needs the user's yes (`force`).
"""

from __future__ import annotations

from flue_tui.checkpoints import owners
from flue_tui.checkpoints.claims import Ownership, gather
from flue_tui.checkpoints.store import STEPS, FileCheckpoints, Restored

UNDO, REDO = "undos", "redos"


def steps(refs: dict[str, str]) -> list[tuple[str, str]]:
    """(undo point, target) of each of a session's steps (and those its source had when it was
    forked): the files a step wrote are its target's."""
    found = []
    for name, point in refs.items():
        target = refs.get(f"{name}-target")
        if target is not None and name.split("/")[0] in STEPS:
            found.append((point, target))
    return found


def ownership(files: FileCheckpoints, prefix: str) -> Ownership:
    """Session `prefix`'s claims and every other session's in the store. What the sessions share
    (a fork's copy of its source's turns and undo stack) is one claim, not a doubt."""
    every = owners.every_ref(files)
    mine = every.pop(prefix, {})
    turns = {c for n, c in mine.items() if n.startswith("own-")}
    theirs = {c for refs in every.values() for n, c in refs.items() if n.startswith("own-")} - turns
    claims = owners.read(files, turns | theirs)
    own_steps = set(steps(mine))
    other_steps = {s for refs in every.values() for s in steps(refs)} - own_steps
    return gather(
        (claims[c] for c in turns if c in claims),
        (claims[c] for c in theirs if c in claims),
        owners.put_back(files, own_steps),
        owners.put_back(files, other_steps),
    )


def rewind(files: FileCheckpoints, prefix: str, n: int, *, force: bool = False) -> Restored | None:
    """Session `prefix`'s files back to checkpoint n; None: there is no checkpoint n. Looked up
    under the store's lock: a snapshot still being taken (an aborted prompt's, left to finish in
    its thread while the session is idle) is waited for, not reported as never taken."""
    with files.git.locked():
        commit = files.resolve(f"{prefix}/{n}")
        return None if commit is None else _step(files, prefix, commit, UNDO, force, None)


def carry(files: FileCheckpoints, source: str, target: str) -> None:
    """Give `target` (the fork a code-and-conversation rewind continues on) `source`'s undo stack,
    so /undo there puts back the files that rewind replaced, and walks back further as in `source`."""
    with files.git.locked():
        refs = files.refs(source)
        kept = {f"{target}/{name}": c for name, c in refs.items() if name.split("/")[0] == UNDO or name == "undo"}
        if kept:
            files.update_refs(kept)


def undo(files: FileCheckpoints, prefix: str, *, force: bool = False) -> Restored | None:
    """Restore the newest undo point (and push the state it replaces on the redo stack); None: none."""
    return _pop(files, prefix, UNDO, REDO, force)


def redo(files: FileCheckpoints, prefix: str, *, force: bool = False) -> Restored | None:
    return _pop(files, prefix, REDO, UNDO, force)


def depth(files: FileCheckpoints, prefix: str, stack: str = UNDO) -> int:
    """How many steps `undo` (or `redo`) can still take."""
    refs = files.refs(prefix)
    return len(_points(refs, stack)) + (stack == UNDO and "undo" in refs)


def _step(files: FileCheckpoints, prefix: str, commit: str, push: str, force: bool, popped: str | None) -> Restored:
    with files.git.locked():
        refs = files.refs(prefix)
        name = f"{push}/{max(_points(refs, push), default=0) + 1}"
        done = files.restore_with(
            commit,
            ownership(files, prefix),
            force,
            lambda before: files.update_refs({f"{prefix}/{name}": before, f"{prefix}/{name}-target": commit}),
        )
        if done.applied:
            after = files.head()
            gone = tuple(
                f"{prefix}/{popped}{end}" for end in ("", "-after", "-target") if popped and f"{popped}{end}" in refs
            )
            files.update_refs({f"{prefix}/{name}-after": after} if after else {}, gone)
        return done


def _pop(files: FileCheckpoints, prefix: str, stack: str, other: str, force: bool) -> Restored | None:
    with files.git.locked():  # the stack read where it is changed: another step may be under way
        refs = files.refs(prefix)
        points = _points(refs, stack)
        if points:
            top = f"{stack}/{max(points)}"
        elif stack == UNDO and "undo" in refs:
            top = "undo"  # the single undo point an older flue kept
        else:
            return None
        return _step(files, prefix, refs[top], other, force, top)


def _points(refs: dict[str, str], stack: str) -> list[int]:
    return [int(k[len(stack) + 1 :]) for k in refs if k.startswith(stack + "/") and k[len(stack) + 1 :].isdigit()]
