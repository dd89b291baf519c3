"""Whether a repository's own configuration is plain enough for git to run unasked.

`git status` in a workspace runs what that repository's `.git/config` names: core.fsmonitor on every
status, filter.*.clean on changed files, diff.*.textconv on diffs, log.showSignature's gpg, and
submodules' configs as git recurses into them. That file does not come from a clone, but a
downloaded archive or a copied directory carries one, so it is untrusted. A git command counts as
read-only only when every config file of the repository git would find from the command's
directory holds nothing but keys known to name no program (a short allowlist, so a key git adds
later is asked, not trusted). Anything this reader is unsure of — a line it cannot parse, an include,
a file it cannot read, too many submodules — makes the answer no.
"""

from __future__ import annotations

import os
import re

from flue_tui.core.files import open_regular

# Keys (section, name) that make git run nothing. Subsections (`remote "origin"`) are any name.
_PLAIN = {
    "core": frozenset(
        "repositoryformatversion filemode bare logallrefupdates ignorecase precomposeunicode symlinks "
        "autocrlf safecrlf eol quotepath checkstat trustctime sharedrepository untrackedcache splitindex "
        "commitgraph multipackindex abbrev compression loosecompression worktree".split()
    ),
    "remote": frozenset("url pushurl fetch push tagopt prune mirror skipdefaultupdate skipfetchall".split()),
    "branch": frozenset("remote merge rebase pushremote description".split()),
    "user": frozenset("name email".split()),
    "extensions": frozenset("objectformat worktreeconfig refstorage noop".split()),
    "init": frozenset({"defaultbranch"}),
    "pull": frozenset({"rebase", "ff"}),
    "push": frozenset({"default", "autosetupremote"}),
    "fetch": frozenset({"prune", "prunetags"}),
    "gc": frozenset({"auto", "autopacklimit"}),
    "index": frozenset({"version"}),
    "status": frozenset({"showuntrackedfiles", "short", "branch"}),
    "submodule": frozenset({"url", "active", "path", "branch"}),
    "lfs": frozenset({"repositoryformatversion"}),
}
_MAX_BYTES = 256 * 1024
_MAX_FILES = 64  # submodule configs read before the answer is no
_HEADER = re.compile(r'^\[\s*([A-Za-z0-9.-]+)\s*(?:"(?:[^"\\\n]|\\.)*")?\s*\]\s*(?:[#;].*)?$')
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=.*)?$")


def plain_config(cwd: str) -> bool:
    """True when git run in `cwd` reads only plain configuration from its repository (or finds none)."""
    try:
        git_dir = _find_git_dir(os.path.realpath(cwd))
        if git_dir is None:
            return True
        files = _config_files(git_dir)
        return files is not None and all(_plain_file(f) for f in files)
    except (OSError, ValueError):
        return False


def _looks_like_git_dir(path: str) -> bool:
    return os.path.exists(os.path.join(path, "HEAD")) and all(
        os.path.isdir(os.path.join(path, d)) for d in ("objects", "refs")
    )


def _find_git_dir(start: str) -> str | None:
    """The directory git's discovery settles on from `start`: `.git` (a directory, or a file naming
    one), or a directory that is itself a repository (a bare one, or the inside of `.git`)."""
    d = start
    while True:
        dot = os.path.join(d, ".git")
        if os.path.isdir(dot):
            return dot
        if os.path.lexists(dot):
            with open_regular(dot) as fh:
                text = fh.read(4096).decode("utf-8", "strict").strip()
            if not text.startswith("gitdir:"):
                raise ValueError("a .git file that names no directory")
            return os.path.join(d, text[len("gitdir:") :].strip())
        if _looks_like_git_dir(d):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _config_files(git_dir: str) -> list[str] | None:
    """Every config file git may read for this repository, or None when there are too many."""
    dirs = [git_dir]
    common = os.path.join(git_dir, "commondir")
    if os.path.lexists(common):
        with open_regular(common) as fh:
            dirs.append(os.path.join(git_dir, fh.read(4096).decode("utf-8", "strict").strip()))
    files = [os.path.join(d, name) for d in dirs for name in ("config", "config.worktree")]
    for d in dirs:  # status and diff recurse into submodules, whose configs live here
        for root, subdirs, names in os.walk(os.path.join(d, "modules")):
            subdirs[:] = [s for s in subdirs if not os.path.islink(os.path.join(root, s))]
            files.extend(os.path.join(root, n) for n in names if n in ("config", "config.worktree"))
            if len(files) > _MAX_FILES:
                return None
    return [f for f in files if os.path.lexists(f)]


def _plain_file(path: str) -> bool:
    with open_regular(path) as fh:
        data = fh.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        return False
    section = ""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            return False  # a continued value: the next line is not a key, and guessing is unsafe
        if line.startswith("["):
            m = _HEADER.match(line)
            if m is None:
                return False  # includes `[core] fsmonitor = x` on one line: not read, so not plain
            section = m.group(1).split(".", 1)[0].lower()
            continue
        m = _KEY.match(line)
        if m is None or m.group(1).lower() not in _PLAIN.get(section, ()):
            return False
    return True
