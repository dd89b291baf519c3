"""Commands that only read, which ask and accept-edits modes run without a question (as Codex does).

A command is read-only when the shell reader finds nothing unclear in it, it writes no file (a
redirection to /dev/null is no write), and every simple command in it — pipelines, lists, `$(…)`
and `<(…)` included — is a program below called by its bare name, with no VAR=value prefix, no word
bash decides at run time (`$x`, a glob could expand to `--pre=evil`), and none of the options that
make it run a program or write a file. GNU tools and git take any unambiguous prefix of a long
option (`--out` is `--output`), so a prefix of a refused option is refused too. git also needs a
repository whose own configuration names no program (git.py's repository_programs). And PATH
must find programs only outside the workspace (no relative entry, none inside it). Anything else is
asked as before.
"""

from __future__ import annotations

import os

from flue_tui.permissions.git import repository_programs
from flue_tui.permissions.shell import SimpleCommand, read_command

# Programs that only read and print, with the options that would make them do more. `echo` is
# left out on purpose: it is what users and tests reach for to see a question asked.
_FIND_ACTIONS = frozenset("-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls".split())
_READERS: dict[str, tuple[str, ...]] = {
    **{p: () for p in "ls cat head tail wc pwd stat du df basename dirname realpath readlink".split()},
    **{p: () for p in "grep egrep fgrep cmp diff whoami id uname which true false test [ nl".split()},
    "rg": ("--pre", "--pre-glob", "--search-zip", "--hostname-bin"),
    "find": (),
    "git": (),
}
_GIT_SUBCOMMANDS = frozenset("status diff log show ls-files rev-parse blame shortlog".split())
_GIT_REFUSED = ("--output", "--output-directory", "--ext-diff", "--open-files-in-pager", "--paginate")


def read_only(command: str, cwd: str, roots: tuple[str, ...] = ()) -> bool:
    """Whether `command`, run by the bash tool in `cwd` (in a workspace of `roots`), can only read."""
    if not _system_path(cwd, roots):
        return False
    try:
        command.encode("utf-8")  # a lone surrogate (a non-UTF-8 byte) is not text to vouch for
    except UnicodeEncodeError:
        return False
    reading = read_command(command)
    if reading.unclear or reading.writes or not reading.commands:
        return False
    if not all(_reads(c) for c in reading.commands):
        return False
    # the subcommands below run no hook; the repository's config may still name a program
    return not any(c.argv[0] == "git" for c in reading.commands) or repository_programs(cwd, False) is None


def _system_path(cwd: str, roots: tuple[str, ...]) -> bool:
    """Whether a bare `ls` is found only outside the workspace: commands get flue's PATH, and an
    entry that is relative (`.`, `bin`, an empty one: the working directory) or inside the
    workspace (`node_modules/.bin`) would run a program the repository ships as `ls` or `git`."""
    places = [os.path.realpath(p) for p in (cwd, *roots)]
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry.startswith("/"):
            return False
        real = os.path.realpath(entry)
        if any(real == p or real.startswith(p.rstrip("/") + "/") for p in places):
            return False
    return True


def _reads(command: SimpleCommand) -> bool:
    argv = command.argv
    if command.assignments or command.dynamic or not argv or argv[0] not in _READERS:
        return False
    args = argv[1:]
    if any(_abbreviates(a, _READERS[argv[0]]) for a in args):
        return False
    if argv[0] == "tail":  # following never ends, and bash has no timeout unless the model set one
        return not any(_abbreviates(a, ("--follow", "--retry")) or _short(a, "fF") for a in args)
    if argv[0] == "rg":  # -z (search compressed files) runs decompressors, also inside a cluster
        return not any(_short(a, "z") for a in args)
    if argv[0] == "find":
        return not _FIND_ACTIONS.intersection(args)
    if argv[0] == "git":
        return _git_reads(args)
    return True


def _git_reads(args: tuple[str, ...]) -> bool:
    i = 0
    while i < len(args) and args[i] == "--no-pager":  # any other global option is asked (-C, -c, -p …)
        i += 1
    if i >= len(args) or args[i] not in _GIT_SUBCOMMANDS:
        return False
    return not any(_abbreviates(a, _GIT_REFUSED) for a in args[i + 1 :])


def _short(word: str, letters: str) -> bool:
    """A cluster of short options (`-nf`) holding one of `letters`."""
    return word.startswith("-") and not word.startswith("--") and any(c in word for c in letters)


def _abbreviates(word: str, refused: tuple[str, ...]) -> bool:
    """`--out=x` abbreviates `--output`; `--` and plain words abbreviate nothing."""
    name = word.split("=", 1)[0]
    return name.startswith("--") and len(name) > 2 and any(opt.startswith(name) for opt in refused)
