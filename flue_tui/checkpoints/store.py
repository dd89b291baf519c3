"""File checkpoints: the workspace's state before each turn, in a git object store of flue's own.

A checkpoint is a commit in a bare repository under `~/.local/share/flue/checkpoints/<workspace hash>`,
holding what `git add -A` would see in the workspace (`.gitignore` honoured, `.git` excluded).
The store's own index makes an unchanged tree cost one `git status` scan. Files over the size
cap, unreadable files and nested repositories are not captured; each snapshot names them, and
records in its commit message every path it saw but did not capture (those and the ignored ones),
so a restore removes only what its checkpoint vouches did not exist then.

A restore (rewind, undo, redo) records the workspace as it is *before* it touches any file, on the
session's undo stack (`<session>/undos/<k>`), so a restore that is killed half-way can be undone;
undoing moves that point to the redo stack (`<session>/redos/<k>`) the same way. What the session's
own tool calls wrote is kept per turn (`<session>/own-<n>`, claims.py), so a restore can tell the
session's files from anyone else's (another session in the same workspace, the user's own edits)
and name those first.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flue_tui.checkpoints.claims import Ownership
from flue_tui.checkpoints.git import Git, GitFailed, global_excludes
from flue_tui.checkpoints.record import Record, vouch
from flue_tui.checkpoints.restore import RawChange, apply_changes, parse_raw_diff
from flue_tui.core.files import read_regular_text

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
_REF_OK = re.compile(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")
# The newest snapshot; also what `git status` compares the index with, so its staged part stays empty.
_LAST = "HEAD"
# A session's steps (checkpoints/stack.py: its rewinds and redos, its undos) and those a fork was
# given by its source (`copy`): each `<name>` an undo point, `<name>-target` the checkpoint it restored.
KEPT = "kept"
STEPS = ("undos", "redos", KEPT)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One checkpoint taken: its commit and tree, how much changed, and what was not captured."""

    commit: str
    tree: str
    changed: int  # paths that differ from the previous snapshot in this store (0: nothing changed)
    skipped: tuple[str, ...]  # present on disk, not captured: over the size cap, unreadable, nested repos


@dataclass(frozen=True, slots=True)
class Change:
    """A path that changed between two checkpoints: added, modified or deleted."""

    status: str  # "added" | "modified" | "deleted"
    path: str


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restore did, or would do when it was refused: the snapshot just before it undoes it."""

    before: Snapshot  # the workspace just before the restore: restoring it undoes the restore
    written: tuple[str, ...]
    removed: tuple[str, ...]
    not_restored: tuple[tuple[str, str], ...]  # (path, why): what the restore could not or would not put back
    foreign: tuple[str, ...] = ()  # paths it removes or overwrites that the session's own calls did not write
    applied: bool = True  # False: refused, as `foreign` needs the user's yes; no file was touched

    @property
    def left_alone(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.not_restored)


def store_for(home: Path, workspace: Path) -> Path:
    real = os.path.realpath(workspace)
    return home / "checkpoints" / hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def total_size(home: Path) -> tuple[int, int]:
    """(workspaces, bytes) of every checkpoint store under `home`, for `flue doctor`."""
    root = home / "checkpoints"
    stores = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    return len(stores), sum(total_size_of(store) for store in stores)


def total_size_of(directory: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(directory):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


class FileCheckpoints:
    def __init__(
        self, workspace: Path, home: Path, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, git: str | None = None
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.max_file_bytes = max_file_bytes
        self.git = Git(store_for(home, self.workspace), self.workspace, git)
        self.home = Path(os.path.realpath(home))

    @property
    def store(self) -> Path:
        return self.git.store

    # -- taking checkpoints -------------------------------------------------------------------

    def snapshot(self, ref: str | None = None, message: str = "checkpoint") -> Snapshot:
        """Record the workspace now; `ref` (e.g. "<session>/<n>") keeps the checkpoint findable."""
        with self.git.locked():
            snap = self._snapshot(message)
            if ref is not None:
                self.git.run(["update-ref", self._ref(ref), snap.commit])
            return snap

    def _snapshot(self, message: str) -> Snapshot:
        self.git.ensure()
        self.git.set_excludes(self._excludes())
        out = self.git.run(
            [
                "status",
                "--porcelain=v2",
                "-z",
                "--untracked-files=all",
                "--ignored=matching",  # an ignored directory is one entry, not walked
                "--no-renames",
                "--ignore-submodules=all",
            ]
        )
        entries = [e for e in out.split(b"\0") if e]
        ignored = frozenset(os.fsdecode(e[2:]) for e in entries if e[:1] == b"!")
        changes = [e for e in entries if e[:1] != b"!"]
        last = self._head() if not changes else None
        if last is not None and last[2] is not None and last[2].ignored == ignored:
            # Nothing differs from the index, the index holds nothing HEAD lacks, and the same paths
            # are ignored: HEAD is the workspace. Two git processes, most of the unchanged-tree cost.
            return Snapshot(last[0], last[1], 0, tuple(sorted(last[2].skipped)))
        to_add, to_drop, skipped = self._classify(changes)
        if to_add and not self.git.succeeds(
            ["add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"],
            input=_pathspecs(to_add),
        ):
            # The rest were added. A tracked file that can no longer be read keeps its old blob in
            # the index, which would pass for its content now: drop it, and name it.
            unreadable = [p for p in to_add if not _readable(self.workspace / p)]
            skipped += unreadable
            to_drop += unreadable
        if to_drop:
            self.git.run(
                ["update-index", "--force-remove", "-z", "--stdin"],
                input=b"".join(os.fsencode(p) + b"\0" for p in to_drop),
            )
        tree = self.git.run(["write-tree"]).decode().strip()
        record = Record(ignored, frozenset(skipped))
        last = last or self._head()
        if last is not None and last[1] == tree and last[2] == record:
            return Snapshot(last[0], tree, 0, tuple(skipped))
        # No parent: each checkpoint stands alone, so the objects of a deleted session's checkpoints
        # become unreachable and `prune` can free them (a chain would keep every tree ever taken).
        commit = self.git.run(["commit-tree", tree], input=record.message(message).encode()).decode().strip()
        self.git.run(["update-ref", _LAST, commit])
        return Snapshot(commit, tree, len(to_add) + len(to_drop), tuple(skipped))

    def _head(self) -> tuple[str, str, Record | None] | None:
        """HEAD's commit, tree and record, in one git process."""
        return self._commit(_LAST)

    def _commit(self, rev: str) -> tuple[str, str, Record | None] | None:
        proc = self.git.run(["cat-file", "--batch"], input=rev.encode() + b"\n", check=False)
        header, _, body = proc.partition(b"\n")
        fields = header.split()
        if len(fields) != 3 or fields[1] != b"commit":
            return None
        head, _, message = body.partition(b"\n\n")
        tree = head.split(b"\n", 1)[0].removeprefix(b"tree ").decode()
        return fields[0].decode(), tree, Record.parse(message.decode("utf-8", "replace"))

    def _classify(self, entries: list[bytes]) -> tuple[list[str], list[str], list[str]]:
        """Paths to stage, paths to drop from the index (gone, or now too big), paths not captured."""
        to_add: list[str] = []
        to_drop: list[str] = []
        skipped: list[str] = []
        for entry in entries:
            kind = entry[:1]
            if kind == b"?":
                path = os.fsdecode(entry[2:])
                if path.endswith("/") or self._too_big(path):  # a nested repository: its own history is its backup
                    skipped.append(path)
                else:
                    to_add.append(path)
            elif kind == b"1":
                fields = entry.split(b" ", 8)
                if len(fields) < 9 or fields[1][1:2] == b".":
                    continue  # staged-only differences are ours already
                path = os.fsdecode(fields[8])
                if fields[1][1:2] == b"D":
                    to_drop.append(path)  # by index path: `git add` refuses a path beyond a symlink
                elif self._too_big(path):
                    skipped.append(path)
                    to_drop.append(path)
                else:
                    to_add.append(path)
        return to_add, to_drop, skipped

    def _too_big(self, path: str) -> bool:
        try:
            st = os.lstat(self.workspace / path)
        except OSError:
            return False
        return st.st_size > self.max_file_bytes and not os.path.islink(self.workspace / path)

    def _excludes(self) -> str:
        parts = [global_excludes()]
        info = self.workspace / ".git" / "info" / "exclude"
        # A repository file: through the one bounded open (a sparse 10 GB exclude must not fill memory).
        with contextlib.suppress(OSError):
            parts.append(read_regular_text(str(info)))
        # flue's own home inside the workspace (its sessions, this store): never snapshot or restore it.
        if self.home == self.workspace or self.workspace in self.home.parents:
            rel = self.home.relative_to(self.workspace).as_posix()
            parts.append("/*" if rel == "." else "/" + "".join("\\" + c if c in "*?[]\\!# " else c for c in rel) + "/")
        return "\n".join(parts)

    # -- reading and restoring ----------------------------------------------------------------

    def diff(self, old: str, new: str) -> list[Change]:
        """What changed on disk from checkpoint `old` to checkpoint `new`."""
        names = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}
        out = self.git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", "--no-commit-id", old, new])
        return [Change(names.get(c.status, "modified"), c.path) for c in parse_raw_diff(out)]

    def patch(self, old: str, new: str) -> str:
        out = self.git.run(["diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", old, new])
        return out.decode("utf-8", "replace")

    def restore(self, commit: str, *, own: Ownership | None = None, force: bool = True) -> Restored:
        """Put the captured files back exactly as checkpoint `commit` had them. `own`: which file
        states are the session's (claims.py); with `force` False, a restore that would remove or
        overwrite anything else touches nothing and says what (`Restored.foreign`)."""
        with self.git.locked():
            return self.restore_with(commit, own or Ownership(), force, lambda _before: None)

    def restore_with(
        self, commit: str, own: Ownership, force: bool, record_before: Callable[[str], object]
    ) -> Restored:
        """`restore` under the caller's lock; `record_before(commit)` is called with the workspace's
        snapshot before any file is touched (and not at all when the restore is refused)."""
        before = self._snapshot("before restore")
        target = self._tree_of(commit)
        out = self.git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", before.tree, target])
        found = self._commit(commit)
        record = found[2] if found is not None else None
        removals: list[str] = []
        writes: list[RawChange] = []
        kept: list[tuple[str, str]] = []
        touched: list[RawChange] = []  # what it removes or overwrites: the state now is replaced
        for change in parse_raw_diff(out):
            if "160000" in (change.old_mode, change.new_mode):
                continue  # a nested repository: not ours to restore
            if change.status == "D":
                why = vouch(record, change.path)
                if why is None:
                    removals.append(change.path)
                    touched.append(change)
                else:
                    kept.append((change.path, why))
            else:
                if change.status == "T":
                    removals.append(change.path)
                if change.status != "A":
                    touched.append(change)
                writes.append(change)
        if record is not None:
            kept += [
                (p, "over the size cap or unreadable at the checkpoint, so not in it") for p in sorted(record.skipped)
            ]
        # A file is the session's only in a state its own tool calls (or steps) left it in.
        foreign = [c.path for c in touched if not own.mine((c.path, c.old_mode, c.old_sha))]
        if foreign and not force:
            return Restored(before, (), (), tuple(kept), tuple(foreign), applied=False)
        record_before(before.commit)  # before any file is touched: a restore killed half-way can be undone
        done = apply_changes(self.git, str(self.workspace), removals, writes)
        self._snapshot("after restore")
        return Restored(before, tuple(done.written), tuple(done.removed), tuple(kept + done.failed), tuple(foreign))

    def keep(self, ref: str, commit: str) -> None:
        """Name `commit` (e.g. the state a restore replaced, so the restore can be undone)."""
        with self.git.locked():
            self.git.run(["update-ref", self._ref(ref), commit])

    def resolve(self, ref: str) -> str | None:
        return self._resolve(self._ref(ref))

    def delete(self, prefix: str) -> int:
        """Forget the checkpoints under `prefix` (a session's); returns how many refs went."""
        if not (self.store / "HEAD").exists():
            return 0
        refs = self.git.run(["for-each-ref", "--format=%(refname)", self._ref(prefix)]).decode().split()
        if refs:
            with self.git.locked():
                self.git.run(["update-ref", "--stdin"], input="".join(f"delete {r}\n" for r in refs).encode())
                # Free what only those checkpoints held (the index's blobs are kept: they are reachable).
                self.git.run(["prune", "--expire=now"])
        return len(refs)

    def numbered(self, prefix: str) -> dict[int, str]:
        """The checkpoints `<prefix>/<n>` (a session's, one per user message) as {n: commit}."""
        return {int(name): c for name, c in self.refs(prefix).items() if name.isdigit()}

    def copy(self, source: str, target: str, *, below: int | None = None) -> int:
        """Give `target` (a fork) the numbered checkpoints of `source` and what its turns wrote
        (`own-<n>`), those under `below` only when given, and what its steps so far put back (as
        `kept/<k>`: the fork's history, not its undo stack); returns how many checkpoints."""
        refs = self.refs(source)
        found = {n: c for n, c in refs.items() if n.removeprefix("own-").isdigit()}
        found = {n: c for n, c in found.items() if below is None or int(n.removeprefix("own-")) < below}
        steps = [n for n in refs if n.split("/")[0] in STEPS and f"{n}-target" in refs]
        for k, name in enumerate(steps, 1):
            found[f"{KEPT}/{k}"], found[f"{KEPT}/{k}-target"] = refs[name], refs[f"{name}-target"]
        if found:
            with self.git.locked():
                self.update_refs({f"{target}/{n}": c for n, c in sorted(found.items())})
        return sum(n.isdigit() for n in found)

    def refs(self, prefix: str) -> dict[str, str]:
        """Every ref under `prefix` (a session's), by its name below it: {"3": commit, "undos/1": …}."""
        if not (self.store / "HEAD").exists():
            return {}
        base = self._ref(prefix) + "/"
        out = self.git.run(["for-each-ref", "--format=%(refname) %(objectname)", base])
        found: dict[str, str] = {}
        for line in out.decode().splitlines():
            name, _, commit = line.rpartition(" ")
            if name.startswith(base):
                found[name[len(base) :]] = commit
        return found

    def update_refs(self, set_to: dict[str, str], delete: tuple[str, ...] = ()) -> None:
        """Set and delete checkpoint names in one git call (the caller holds the lock)."""
        lines = [f"update {self._ref(r)} {c}\n" for r, c in set_to.items()]
        lines += [f"delete {self._ref(r)}\n" for r in delete]
        if lines:
            self.git.run(["update-ref", "--stdin"], input="".join(lines).encode())

    def head(self) -> str | None:
        return self._resolve(_LAST)

    def size_bytes(self) -> int:
        return total_size_of(self.store)

    def _ref(self, ref: str) -> str:
        if not _REF_OK.match(ref) or ".." in ref or ref.endswith(".lock"):
            raise ValueError(f"not a checkpoint name: {ref!r}")
        return f"refs/flue/{ref}"

    def _resolve(self, ref: str) -> str | None:
        try:
            out = self.git.run(["rev-parse", "--verify", "--quiet", ref + "^{commit}"], check=True)
        except GitFailed:
            return None
        return out.decode().strip() or None

    def _tree_of(self, commit: str) -> str:
        return self.git.run(["rev-parse", "--verify", commit + "^{tree}"]).decode().strip()


def _readable(path: Path) -> bool:
    if path.is_symlink():
        return True
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC))
    except OSError:
        return not path.exists()  # gone meanwhile: git add dropped it, nothing to name
    return True


def _pathspecs(paths: list[str]) -> bytes:
    return b"\0".join(os.fsencode(":(literal)" + p) for p in paths) + b"\0"
