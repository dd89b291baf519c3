"""Claims (claims.py) kept in and read from the checkpoint store, for every session in the workspace.

A turn's claims are one blob, named `<session>/own-<n>`. What a rewind, undo or redo put back is
not stored again: it is the target checkpoint's state of each path that differs between the step's
undo point and its target (both named already, checkpoints/stack.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from flue_tui.checkpoints.claims import Claims, State
from flue_tui.checkpoints.restore import parse_raw_diff
from flue_tui.checkpoints.store import FileCheckpoints

PREFIX = "refs/flue/"


def save(files: FileCheckpoints, ref: str, claims: Claims | bytes) -> None:
    """Keep `claims` (or their `encode(ref)`) as `ref` (a turn's: `<session>/own-<n>`)."""
    data = claims if isinstance(claims, bytes) else claims.encode(ref)
    with files.git.locked():
        files.git.ensure()
        blob = files.git.run(["hash-object", "-w", "--stdin"], input=data).decode().strip()
        files.update_refs({ref: blob})


def window(files: FileCheckpoints, before: str, after: str) -> dict[str, tuple[str, str]]:
    """What changed from snapshot `before` to `after` and is there after: {path: (mode, blob)}."""
    out = files.git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", before, after])
    return {c.path: (c.new_mode, c.new_sha) for c in parse_raw_diff(out) if c.status != "D"}


def every_ref(files: FileCheckpoints) -> dict[str, dict[str, str]]:
    """Every session's refs in the store: {session: {name below it: object}}."""
    if not (files.store / "HEAD").exists():
        return {}
    out = files.git.run(["for-each-ref", "--format=%(objectname) %(refname)", PREFIX])
    found: dict[str, dict[str, str]] = {}
    for line in out.decode("utf-8", "replace").splitlines():
        obj, _, name = line.partition(" ")
        session, _, below = name.removeprefix(PREFIX).partition("/")
        if below:
            found.setdefault(session, {})[below] = obj
    return found


def read(files: FileCheckpoints, blobs: Iterable[str]) -> dict[str, Claims]:
    """The claims in each of `blobs`, in one git process (a blob that is not claims is left out)."""
    wanted = list(dict.fromkeys(blobs))
    if not wanted:
        return {}
    out = files.git.run(["cat-file", "--batch"], input="".join(f"{b}\n" for b in wanted).encode(), check=False)
    found: dict[str, Claims] = {}
    at = 0
    for blob in wanted:
        end = out.find(b"\n", at)
        header = out[at:end].split()
        if end < 0 or len(header) != 3:
            break
        at = end + 1
        if header[1] == b"missing":
            continue
        size = int(header[2])
        claims = Claims.decode(out[at : at + size]) if header[1] == b"blob" else None
        at += size + 1
        if claims is not None:
            found[blob] = claims
    return found


def put_back(files: FileCheckpoints, steps: Iterable[tuple[str, str]]) -> frozenset[State]:
    """The states the steps (undo point, target) wrote: the target's, where it differs from the point."""
    states: set[State] = set()
    for point, target in dict.fromkeys(steps):
        out = files.git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", point, target])
        states |= {(c.path, c.new_mode, c.new_sha) for c in parse_raw_diff(out) if c.status != "D"}
    return frozenset(states)


def relative(files: FileCheckpoints, cwd: str, path: str) -> str | None:
    """A tool's path argument as the store names it, or None when it is outside the workspace."""
    full = os.path.realpath(os.path.join(cwd, path))
    rel = os.path.relpath(full, files.workspace)
    outside = rel in (".", "..") or rel.startswith("../") or os.path.isabs(rel)
    return None if outside else rel.replace(os.sep, "/")
