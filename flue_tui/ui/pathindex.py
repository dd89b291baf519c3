"""The working tree's paths for `@` completion: walked once in a thread, filtered in memory.

`.gitignore` files are honoured the git way with pathspec: each file's patterns are relative to
its own directory, deeper files win, and ignored directories are pruned rather than walked.
"""

from __future__ import annotations

import os
import re
from typing import Any

from flue_tui.core.files import read_regular_text, utf8_name

MAX_PATHS = 500_000
ALWAYS_SKIP = {".git", ".hg", ".svn"}


def _read_spec(path: str) -> Any:
    try:  # the one bounded open: a FIFO named .gitignore must not stall the index, /dev/zero not fill memory
        lines = read_regular_text(path).splitlines()
    except OSError:
        return None
    lines = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return None
    from pathspec import GitIgnoreSpec  # imported in the indexing thread, not before the first frame

    return GitIgnoreSpec.from_lines(lines)


def _ignores_itself(path: str) -> bool:
    """A directory whose own .gitignore ignores everything in it (pytest's and ruff's caches write `*`):
    git shows nothing of it, so neither does completion."""
    gitignore = os.path.join(path, ".gitignore")
    if not os.path.isfile(gitignore):
        return False
    spec = _read_spec(gitignore)
    if spec is None:
        return False
    try:
        entries = list(os.scandir(path))
    except OSError:
        return False
    return all(spec.match_file(e.name + ("/" if e.is_dir(follow_symlinks=False) else "")) for e in entries)


def walk_paths(root: str, limit: int = MAX_PATHS) -> list[str]:
    """Repo-relative paths (directories end with '/'), ignored ones left out, shallow first."""
    stack: list[tuple[str, Any]] = []  # (dir relative to root, its GitIgnoreSpec), root → leaf
    root_spec = _read_spec(os.path.join(root, ".git", "info", "exclude"))
    if root_spec is not None:
        stack.append(("", root_spec))

    def ignored(rel: str, is_dir: bool) -> bool:
        verdict = None
        for base, spec in stack:
            sub = rel[len(base) + 1 :] if base else rel
            result = spec.check_file(sub + "/" if is_dir else sub)
            if result.include is not None:
                verdict = result.include
        return bool(verdict)

    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        while stack and stack[-1][0] and not (rel_dir == stack[-1][0] or rel_dir.startswith(stack[-1][0] + "/")):
            stack.pop()
        if ".gitignore" in filenames:
            spec = _read_spec(os.path.join(dirpath, ".gitignore"))
            if spec is not None:
                stack.append((rel_dir, spec))
        prefix = f"{rel_dir}/" if rel_dir else ""
        kept = []
        for d in sorted(dirnames):
            if (
                not utf8_name(d)
                or d in ALWAYS_SKIP
                or (stack and ignored(prefix + d, True))
                or _ignores_itself(os.path.join(dirpath, d))
            ):
                continue
            kept.append(d)
            out.append(f"{prefix}{d}/")
        dirnames[:] = kept
        for name in sorted(filter(utf8_name, filenames)):
            rel = prefix + name
            if not stack or not ignored(rel, False):
                out.append(rel)
        if len(out) >= limit:
            break
    out.sort(key=lambda p: (p.count("/") - p.endswith("/"), p))
    return out[:limit]


class PathIndex:
    """Built once (`build()`, blocking: call it in a thread); `search()` is a fast in-memory filter."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.paths: list[str] = []
        self._lower: list[str] = []
        self._base: list[str] = []
        self.ready = False

    def build(self) -> None:
        paths = walk_paths(self.root)
        self._lower = [p.lower() for p in paths]
        self._base = [p.rstrip("/").rsplit("/", 1)[-1] for p in self._lower]
        self.paths = paths
        self.ready = True

    def search(self, query: str, limit: int = 50) -> list[str]:
        """Basename prefix, then basename substring, then path substring, then in-order letters."""
        if not query:
            return self.paths[:limit]
        q = query.lower()
        tiers: list[list[tuple[int, int]]] = [[], [], []]
        for i, p in enumerate(self._lower):
            if q in p:
                b = self._base[i]
                tier = 0 if b.startswith(q) else (1 if q in b else 2)
                tiers[tier].append((len(p), i))
        found: list[int] = []
        for tier in tiers:
            tier.sort()
            found.extend(i for _, i in tier[: limit - len(found)])
            if len(found) >= limit:
                break
        if len(found) < limit and len(q) > 1:
            fuzzy = re.compile(".*?".join(map(re.escape, q)))
            have = set(found)
            extra = sorted((len(p), i) for i, p in enumerate(self._lower) if i not in have and fuzzy.search(p))
            found.extend(i for _, i in extra[: limit - len(found)])
        return [self.paths[i] for i in found]


def completion_text(path: str) -> str:
    """How a path is inserted after `@` (quoted when it has spaces). A directory's quote is left
    open: what is typed next goes on inside it (`@"my dir/a`), not after it (`@"my dir/"a`)."""
    if " " not in path:
        return f"@{path}"
    return f'@"{path}' if path.endswith("/") else f'@"{path}"'
