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

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.permissions.shellwords import Collector, Word

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
