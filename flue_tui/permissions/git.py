"""What makes a git command able to run any program, so that `bash(git *)` does not allow it.

git runs programs named in its configuration (core.pager, core.fsmonitor, diff.external, alias.x =
"!cmd", …). A command that sets configuration (`-c`, `--config-env`, `git config …`), points git at
other programs (`--exec-path=`, `--upload-pack`, `rebase --exec`, `grep -O`, `clone --template`), or
whose arguments are only known when it runs is unclear: asked, never allowed by a rule. Files git
writes itself (`--output=`, `archive -o`) are judged like a redirection. A
subcommand git does not ship is an alias from the user's configuration: only a rule that names it
(`bash(git co *)`) allows it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from flue_tui.core.files import open_regular
from flue_tui.permissions.gitindex import gitlinks

if TYPE_CHECKING:
    from flue_tui.permissions.shellwords import Collector, SimpleCommand, Word

KNOWN = frozenset(
    """
add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore
check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit
commit-graph commit-tree config count-objects credential describe diagnose diff diff-files diff-index
diff-tree difftool fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch
fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init instaweb interpret-trailers log
ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-tree mergetool
mktag mktree multi-pack-index mv name-rev notes pack-objects pack-refs prune prune-packed pull push
range-diff read-tree rebase reflog refs remote repack replace request-pull rerere reset restore rev-list
rev-parse revert rm send-email shortlog show show-branch show-index show-ref sparse-checkout stage stash
status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref
verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs
""".split()
)
# Global options that take the next word as their value.
_GLOBAL_ARG = frozenset("-c --config-env -C --git-dir --work-tree --namespace --super-prefix --attr-source".split())
_CONFIG_READS = frozenset("--get --get-all --get-regexp --get-urlmatch --list -l get list".split())
_CONFIG_WRITES = frozenset(
    """--add --unset --unset-all --replace-all --rename-section --remove-section --edit -e
set unset edit rename-section remove-section""".split()
)
# Subcommands that run a program they are given, whatever their options.
_RUNS_PROGRAMS = frozenset("filter-branch difftool mergetool instaweb web--browse send-email daemon".split())
# Options that name a program for git to run, per subcommand.
_PROGRAM_OPTIONS = {
    "clone": ("-u", "--upload-pack", "-c", "--config", "--template"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "push": ("--receive-pack", "--exec"),
    "archive": ("--exec",),
    "init": ("--template",),
    "rebase": ("-x", "--exec"),
    "grep": ("-O", "--open-files-in-pager"),
    "bisect": ("run",),
    "submodule": ("foreach",),
}


def check_git(words: list[Word], out: Collector) -> None:
    """Add to `out` why this git command could run another program, if it could."""
    if not all(w.static for w in words[1:]):
        out.doubt("git with arguments known only when it runs (one could set a program for git to run)")
    i = 1
    while i < len(words) and words[i].text.startswith("-"):
        t = words[i].text
        if t.startswith(("-c", "--config-env", "--exec-path=")):
            out.doubt(f"git {t.split('=', 1)[0]} can make git run any program")
        i += 2 if t in _GLOBAL_ARG else 1
    if i >= len(words):
        return
    sub, args = words[i].text, [w.text for w in words[i + 1 :]]
    if i > 1:  # a deny rule for `git push *` also sees `git -C dir --no-pager push`
        out.commands[-1] = replace(out.commands[-1], plain=" ".join(["git", sub, *args]))
    if sub not in KNOWN:
        out.commands[-1] = replace(out.commands[-1], only_named=f"git {sub}")
    elif sub in _RUNS_PROGRAMS:
        out.doubt(f"git {sub} runs programs")
    elif sub == "config" and (not _CONFIG_READS.intersection(args) or _CONFIG_WRITES.intersection(args)):
        out.doubt("git config can set a program for git to run")
    for j, a in enumerate(args):  # git writes these files itself: they count as writes, like `>`
        if a.startswith(("--output=", "--output-directory=")):
            out.writes.append(a.split("=", 1)[1])
        elif a in ("--output", "--output-directory") or (a == "-o" and sub in ("archive", "format-patch")):
            out.writes.extend(args[j + 1 : j + 2])
    for opt in _PROGRAM_OPTIONS.get(sub, ()):
        if any(
            a == opt
            or (opt.startswith("--") and a.startswith(opt + "="))
            or (not opt.startswith("--") and opt.startswith("-") and a.startswith(opt))
            for a in args
        ):
            out.doubt(f"git {sub} {opt} runs a program it is given")


# -- what a repository's own configuration makes git run -------------------------------------------
# A rule such as `bash(git status:*)` vouches for the command, not for the repository it runs in: a
# workspace can come with a `.git/config` naming programs git runs on its own (core.fsmonitor on
# every `git status`, core.hooksPath, filter.*.clean, diff.external, a remote's uploadpack …). Only
# keys known to run nothing leave a rule's word standing; anything else makes the command a question.
_INERT = frozenset(
    """
core.repositoryformatversion core.filemode core.bare core.logallrefupdates core.ignorecase
core.precomposeunicode core.symlinks core.autocrlf core.safecrlf core.eol core.quotepath core.checkstat
core.trustctime core.abbrev core.compression core.untrackedcache core.splitindex core.preloadindex
core.sparsecheckout core.sparsecheckoutcone core.commentchar core.whitespace core.multipackindex
core.commitgraph core.fscache core.longpaths
remote.*.url remote.*.pushurl remote.*.fetch remote.*.push remote.*.mirror remote.*.tagopt remote.*.prune
remote.*.promisor remote.*.partialclonefilter
branch.*.remote branch.*.merge branch.*.rebase branch.*.pushremote branch.*.description
submodule.*.url submodule.*.active submodule.*.branch submodule.*.fetchrecursesubmodules
user.name user.email user.signingkey init.defaultbranch pull.rebase pull.ff push.default
push.autosetupremote fetch.prune gc.auto rerere.enabled status.showuntrackedfiles status.short
status.branch log.decorate log.date diff.renames diff.algorithm diff.mnemonicprefix diff.context
extensions.worktreeconfig extensions.objectformat extensions.partialclone extensions.refstorage
lfs.repositoryformatversion index.version protocol.version maintenance.auto maintenance.strategy
""".split()
)
_INERT_SECTIONS = frozenset({"color", "advice"})
# Subcommands that update no ref and run no hook: in these, a hook (or core.hooksPath) runs nothing.
_HOOKLESS = frozenset(
    "status diff log show blame ls-files ls-tree rev-parse grep describe shortlog cat-file rev-list show-ref "
    "for-each-ref name-rev version help whatchanged diff-files diff-index diff-tree check-ignore check-attr".split()
)


def _git_dir(start: str) -> tuple[str, str | None] | None:
    """The git directory git would use from `start`, and its work tree: the first `.git` (a
    directory, or a file that says `gitdir: …`, as in a worktree or submodule) on the way up."""
    d = os.path.abspath(start)
    while True:
        dot = os.path.join(d, ".git")
        if os.path.isdir(dot):
            return dot, d
        if os.path.isfile(dot):
            try:
                with open_regular(dot) as fh:  # a FIFO planted as `.git` must not hang the policy
                    line = fh.read(4096).decode("utf-8", "replace").strip()
            except OSError:
                return dot, d
            return (os.path.join(d, line[7:].strip()) if line.startswith("gitdir:") else dot), d
        if os.path.exists(os.path.join(d, "HEAD")) and any(
            os.path.exists(os.path.join(d, p)) for p in ("objects", "commondir")
        ):
            # a bare repository; git needs no `config` of its own there: `commondir` names where
            # its objects and config are (repository_programs reads that config). A project with
            # a HEAD file and a config/ folder but no objects is none.
            return d, None
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _config_keys(path: str) -> list[tuple[str, str]]:
    """(key as `section.sub.name`, value) of one git config file, read as git does in the cases
    that matter here; a file that cannot be read says so, as an unreadable key."""
    try:
        with open_regular(path) as fh:  # a FIFO planted as the config must not hang the question
            text = fh.read(1 << 20).decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    except OSError:
        return [("(unreadable config)", "")]
    out, section = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        while line.startswith("["):  # git reads `[color][core] fsmonitor = x` as core's key
            head = line[1 : line.find("]")] if "]" in line else line[1:]
            name, _, sub = head.partition(" ")
            section = f"{name.lower()}.{sub.strip().strip(chr(34))}" if sub else name.lower()
            line = line[line.find("]") + 1 :].strip() if "]" in line else ""
        if not line:
            continue  # `[core] fsmonitor = x` on one line goes on as a key of that section
        key, _, value = line.partition("=")
        out.append((f"{section}.{key.strip().lower()}", value.strip()))
    return out


def _runs(key: str, value: str) -> bool:
    parts = key.split(".")
    if parts[0] in _INERT_SECTIONS:
        return False
    pattern = f"{parts[0]}.*.{parts[-1]}" if len(parts) > 2 else key
    if pattern not in _INERT:
        return True
    return parts[-1] in ("url", "pushurl") and value.strip('"').lower().startswith(("ext::", "-"))


_MAX_CONFIGS = 64  # submodule configs read before the answer is "too many to check"


def _config_files(git_dir: str) -> list[str]:
    """The config files git reads in `git_dir`, and its submodules' (status and diff recurse into
    them, running what their configs name); past _MAX_CONFIGS, a name that reads as unreadable."""
    files = [os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree")]
    for root, subdirs, names in os.walk(os.path.join(git_dir, "modules")):
        subdirs[:] = [s for s in subdirs if not os.path.islink(os.path.join(root, s))]
        files.extend(os.path.join(root, n) for n in names if n in ("config", "config.worktree"))
        if len(files) > _MAX_CONFIGS:
            return [*files[:_MAX_CONFIGS], os.path.join(git_dir, "modules")]  # a directory: unreadable
    return files


def repository_programs(cwd: str, hooks_run: bool = True) -> str | None:
    """Why git run from `cwd` could start a program its repository's own config or hooks name, or
    None: one phrase, naming the key or hook. `hooks_run`: False for a subcommand that runs none."""
    found = _git_dir(cwd)
    if found is None:
        return None
    return _programs(*found, hooks_run, depth=0)


_MAX_DEPTH = 4  # submodules of submodules read before the answer is "too deep to check"


def _programs(gitdir: str, worktree: str | None, hooks_run: bool, depth: int) -> str | None:
    dirs = [gitdir]
    try:
        with open_regular(os.path.join(gitdir, "commondir")) as fh:
            # a worktree shares the main repository's config
            dirs.append(os.path.join(gitdir, fh.read(4096).decode("utf-8", "replace").strip()))
    except OSError:
        pass
    for d in dirs:
        for path in _config_files(d):
            for key, value in _config_keys(path):
                if _runs(key, value) and (hooks_run or key != "core.hookspath"):
                    return f"its git config sets {key}"
        try:
            hooks = [h for h in os.listdir(os.path.join(d, "hooks")) if not h.endswith(".sample")] if hooks_run else []
        except OSError:
            hooks = []
        if hooks:
            return f"it has the git hook {sorted(hooks)[0]}"
    # status and diff recurse into every submodule checked out in the work tree, wherever its
    # repository lives (a nested `sub/.git` directory too), and git there reads its config
    links = gitlinks(gitdir) if worktree is not None else []
    if links is None:
        return "its git index could not be read to find its submodules"
    if len(links) > _MAX_CONFIGS:
        return "it has too many submodules to check"
    for link in links:
        path = os.path.join(worktree or "", link)
        sub = _git_dir(path) if os.path.lexists(os.path.join(path, ".git")) else None  # else: not checked out
        if sub is None or sub[0] == gitdir:
            continue
        if depth >= _MAX_DEPTH:
            return "its submodules nest too deep to check"
        why = _programs(*sub, hooks_run, depth + 1)
        if why is not None:
            return f"{why} (in its submodule {link})"
    return None


def git_cwds(commands: tuple[SimpleCommand, ...] | list[SimpleCommand], base: str) -> list[tuple[str, bool]]:
    """Where the git commands among `commands` may run, and whether the subcommand runs hooks:
    `base`, the directory `-C` names, and any directory the command `cd`s into (which one applies
    is only known as it runs)."""
    gits = [c for c in commands if c.argv and c.argv[0].rsplit("/", 1)[-1] == "git"]
    dirs = [
        os.path.join(base, os.path.expanduser(c.argv[1]))
        for c in commands
        if gits and c.argv and c.argv[0] in ("cd", "pushd") and len(c.argv) > 1
    ]
    out: list[tuple[str, bool]] = []
    for c in gits:
        where, i, sub = base, 1, ""
        while i < len(c.argv):
            word = c.argv[i]
            if word == "-C" and i + 1 < len(c.argv):
                where = os.path.join(where, c.argv[i + 1])
            if word in _GLOBAL_ARG:
                i += 2
                continue
            if not word.startswith("-"):
                sub = word
                break
            i += 1
        hooks = sub not in _HOOKLESS
        out += [(d, hooks) for d in (where, *dirs)]
    return list(dict.fromkeys(out))
