"""A session's code rewinds as a stack, so no rewind, undo or redo ever loses a state.

Each step restores a checkpoint through `FileCheckpoints.restore_with`, which snapshots the
workspace before touching any file; that snapshot is pushed first (`<session>/undos/<k>` for a
rewind or redo, `<session>/redos/<k>` for an undo) with the checkpoint it restores (`…-target`),
and the state the step left is kept beside it once it has finished (`…-after`). So a step killed half-way leaves its undo point on top; a second rewind pushes a new
point instead of replacing the first; repeated undos walk back. A popped point goes only once its
restore finished: an undo killed half-way is run again by the next undo.

What the session itself did is every turn's (checkpoint n, end-n) and every step's (point, after):
a file in the state one of those left is the session's; anything else a step would remove or
overwrite is named, and needs the user's yes (`force`).
"""

from __future__ import annotations

from flue_tui.checkpoints.store import FileCheckpoints, Restored

UNDO, REDO = "undos", "redos"


def own_steps(files: FileCheckpoints, prefix: str) -> list[tuple[str, str]]:
    """(start, end) of each turn of session `prefix` whose end was kept, and of each of its steps."""
    refs = files.refs(prefix)
    pairs = [(refs[n], refs[f"end-{n}"]) for n in refs if n.isdigit() and f"end-{n}" in refs]
    for name, point in refs.items():
        # A step killed half-way has no `-after`: the files it wrote are in its target's state.
        end = refs.get(f"{name}-after") or refs.get(f"{name}-target")
        if end is not None and name.split("/")[0] in (UNDO, REDO):
            pairs.append((point, end))
    return pairs


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
            own_steps(files, prefix),
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
