"""Which files a session's own actions wrote: what a rewind may remove or overwrite without asking.

A claim is a path in the state (git mode and blob) one of the session's own actions left it in.
`wrote`: by a tool that names its file (write, edit), hashed once the tool had written it, or put
back by one of its rewinds, undos or redos (the checkpoint's blob). `ran`: changed on disk while
one of its commands ran (bash, a `!` command), from the snapshots taken just before and just after
it: a command can write anything, and nothing tells its writes from another process's meanwhile.

A path is the session's when its state now is one it `wrote`, or one it `ran` that no other
session claims (`Ownership.mine`): a file another session wrote while this one's command ran is
claimed by both, so it is named, not removed; and two sessions whose commands overlapped each name
a file both saw appear. A `wrote` claim is proof: those bytes are the session's own.
A turn's claims are kept as one JSON blob, `<session>/own-<n>`, rewritten after each call; a fork
is given its source's (the same blobs), which are then one claim, never a doubt of each other.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field

State = tuple[str, str, str]  # (path, git mode, blob id)


@dataclass(slots=True)
class Claims:
    """One turn's claims, gathered while it runs (a path's newest state wins)."""

    wrote: dict[str, tuple[str, str]] = field(default_factory=dict)
    ran: dict[str, tuple[str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.wrote or self.ran)

    def encode(self, ref: str) -> bytes:
        """As kept under `ref`, which it names: no two turns' blobs are one object, but a fork's copy is."""
        body: dict[str, object] = {
            k: {p: list(s) for p, s in v.items()} for k, v in (("wrote", self.wrote), ("ran", self.ran))
        }
        return json.dumps({"ref": ref, **body}, sort_keys=True).encode()

    @staticmethod
    def decode(data: bytes) -> Claims | None:
        """None for a blob that is not one (a damaged store claims nothing)."""
        try:
            body = json.loads(data)
            return Claims(*({p: (str(s[0]), str(s[1])) for p, s in body[k].items()} for k in ("wrote", "ran")))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None

    def states(self) -> tuple[frozenset[State], frozenset[State]]:
        return _states(self.wrote), _states(self.ran)


def _states(found: dict[str, tuple[str, str]]) -> frozenset[State]:
    return frozenset((p, mode, sha) for p, (mode, sha) in found.items())


@dataclass(frozen=True, slots=True)
class Ownership:
    """This session's claims and every other session's, as a restore judges the files it touches."""

    wrote: frozenset[State] = frozenset()
    ran: frozenset[State] = frozenset()
    others_wrote: frozenset[State] = frozenset()
    others_ran: frozenset[State] = frozenset()

    def mine(self, state: State) -> bool:
        if state in self.wrote:
            return True  # its own bytes, written by the session itself
        return state in self.ran and state not in self.others_wrote and state not in self.others_ran


def gather(mine: Iterable[Claims], others: Iterable[Claims], wrote: Iterable[State] = (), others_wrote=()) -> Ownership:
    """An Ownership from this session's turns and other sessions', plus the states steps put back."""
    parts = [c.states() for c in mine]
    theirs = [c.states() for c in others]
    return Ownership(
        frozenset().union(*(w for w, _ in parts), wrote),
        frozenset().union(*(r for _, r in parts)),
        frozenset().union(*(w for w, _ in theirs), others_wrote),
        frozenset().union(*(r for _, r in theirs)),
    )


def file_state(path: str, max_bytes: int) -> tuple[str, str] | None:
    """`path`'s (mode, blob id) as a snapshot would store it; None when a snapshot would not
    capture it (gone, not a regular file or symlink, over the size cap, unreadable)."""
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return "120000", _blob(os.fsencode(os.readlink(path)))
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) > max_bytes:
        return None
    return ("100755" if st.st_mode & stat.S_IXUSR else "100644"), _blob(data)


def _blob(data: bytes) -> str:
    # The store is made by `git init` with no config that could pick another hash: SHA-1 objects.
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
