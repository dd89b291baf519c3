"""File checkpoints: the workspace's state before each turn, in a git object store of flue's own.

A checkpoint is a commit in a bare repository under `~/.local/share/flue/checkpoints/<workspace hash>`,
holding what `git add -A` would see in the workspace (`.gitignore` honoured, `.git` excluded).
The store's own index makes an unchanged tree cost one `git status` scan. Files over the size
cap and nested repositories are not captured; each snapshot names them, and a restore leaves any
file it did not capture alone.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from flue_tui.checkpoints.git import Git, GitFailed, global_excludes
from flue_tui.checkpoints.restore import apply_changes, parse_raw_diff

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
_REF_OK = re.compile(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$")
# The newest snapshot; also what `git status` compares the index with, so its staged part stays empty.
_LAST = "HEAD"


@dataclass(frozen=True, slots=True)
class Snapshot:
    commit: str
    tree: str
    changed: int  # paths that differ from the previous snapshot in this store (0: nothing changed)
    skipped: tuple[str, ...]  # present on disk, not captured: over the size cap, unreadable, nested repos


@dataclass(frozen=True, slots=True)
class Change:
    status: str  # "added" | "modified" | "deleted"
    path: str


@dataclass(frozen=True, slots=True)
class Restored:
    before: Snapshot  # the workspace just before the restore: restoring it undoes the restore
    written: tuple[str, ...]
    removed: tuple[str, ...]
    left_alone: tuple[str, ...]  # on disk now but not captured then or now (ignored, too big)


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
            ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all"]
        )
        if not out.strip(b"\0"):
            # Nothing differs from the index, and the index holds nothing HEAD lacks: HEAD is the
            # workspace. Two git processes in all, which is most of the unchanged-tree cost.
            proc = self.git.result(["rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--"])
            heads = [h for h in proc.stdout.split() if h != b"--"]  # rev-parse echoes the "--"
            if proc.returncode == 0 and len(heads) == 2:
                return Snapshot(heads[0].decode(), heads[1].decode(), 0, ())
        to_add, to_drop, skipped = self._classify(out)
        if to_add:
            if not self.git.succeeds(
                ["add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"],
                input=_pathspecs(to_add),
            ):
                skipped += self._unreadable(to_add)  # the rest were added; name what was not
        if to_drop:
            self.git.run(
                ["update-index", "--force-remove", "-z", "--stdin"],
                input=b"".join(os.fsencode(p) + b"\0" for p in to_drop),
            )
        tree = self.git.run(["write-tree"]).decode().strip()
        last = self._resolve(_LAST)
        if last is not None and self._tree_of(last) == tree:
            return Snapshot(last, tree, 0, tuple(skipped))
        # No parent: each checkpoint stands alone, so the objects of a deleted session's checkpoints
        # become unreachable and `prune` can free them (a chain would keep every tree ever taken).
        commit = self.git.run(["commit-tree", tree, "-m", message or "checkpoint"]).decode().strip()
        self.git.run(["update-ref", _LAST, commit])
        return Snapshot(commit, tree, len(to_add) + len(to_drop), tuple(skipped))

    def _classify(self, status: bytes) -> tuple[list[str], list[str], list[str]]:
        """Paths to stage, paths to drop from the index (gone, or now too big), paths not captured."""
        to_add: list[str] = []
        to_drop: list[str] = []
        skipped: list[str] = []
        for entry in status.split(b"\0"):
            if not entry:
                continue
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

    def _unreadable(self, paths: list[str]) -> list[str]:
        listed = self.git.run(["ls-files", "-z", "--cached"])
        have = {os.fsdecode(p) for p in listed.split(b"\0") if p}
        return [p for p in paths if p not in have and os.path.lexists(self.workspace / p)]

    def _excludes(self) -> str:
        parts = [global_excludes()]
        info = self.workspace / ".git" / "info" / "exclude"
        if info.is_file():
            parts.append(info.read_text(encoding="utf-8", errors="replace"))
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

    def restore(self, commit: str) -> Restored:
        """Put the captured files back exactly as checkpoint `commit` had them."""
        with self.git.locked():
            before = self._snapshot("before restore")
            target = self._tree_of(commit)
            out = self.git.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", before.tree, target])
            written, removed, left = apply_changes(self.git, self.workspace, parse_raw_diff(out))
            self._snapshot("after restore")
            return Restored(before, tuple(written), tuple(removed), tuple(left))

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
        if not (self.store / "HEAD").exists():
            return {}
        out = self.git.run(["for-each-ref", "--format=%(refname) %(objectname)", self._ref(prefix) + "/"])
        found: dict[int, str] = {}
        for line in out.decode().splitlines():
            name, _, commit = line.rpartition(" ")
            last = name.rsplit("/", 1)[-1]
            if last.isdigit():
                found[int(last)] = commit
        return found

    def copy(self, source: str, target: str, *, below: int | None = None) -> int:
        """Give `target` (a fork) the numbered checkpoints of `source`, those under `below` only when given."""
        found = {n: c for n, c in self.numbered(source).items() if below is None or n < below}
        if found:
            lines = "".join(f"update {self._ref(f'{target}/{n}')} {c}\n" for n, c in sorted(found.items()))
            with self.git.locked():
                self.git.run(["update-ref", "--stdin"], input=lines.encode())
        return len(found)

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


def _pathspecs(paths: list[str]) -> bytes:
    return b"\0".join(os.fsencode(":(literal)" + p) for p in paths) + b"\0"
