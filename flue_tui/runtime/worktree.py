"""Worktree sessions: `flue -w NAME` runs in a git worktree of its own, `flue worktree list|remove`.

A worktree NAME lives beside the repository, in `<repo>.worktrees/NAME` next to the main working
tree (so one directory holds them all, and none lands inside the repository where the model's
globs and `git status` would see it), on the branch NAME: created when missing (from HEAD, or the
existing branch NAME checked out), reused when git already knows it at that path. Anything else
at the path (a directory git does not know, a file, a symlink) is refused, never reused or
replaced. NAME is a directory name and a branch name both, so it is kept to a narrow alphabet.

git runs in the user's repository as the user would run it, with what a repository's own config
could otherwise make it run turned off: hooks, `core.fsmonitor`, the filter drivers its local
config defines (a checkout runs `smudge`/`process`, `status` runs `clean`; the user's global
drivers, git-lfs's, stay) and submodule recursion. Every failure is one
sentence (WorktreeError), never git's multi-line output or a traceback.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from flue_tui.config.errors import ConfigError
from flue_tui.core.files import shown_name
from flue_tui.core.termsafe import terminal_safe

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
SUFFIX = ".worktrees"  # <repo>.worktrees/NAME
_HALF_MADE = "\x00initializing"  # the branch _registered() reports for a worktree git is still (or was) making
_GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")


class WorktreeError(ConfigError):
    """One sentence for the user; the run never starts (exit 2 like every start-up error)."""


@dataclass(frozen=True, slots=True)
class Worktree:
    """A worktree `flue -w NAME` runs in: its path and branch, and whether this call made it."""

    name: str
    path: str
    branch: str | None  # None: detached HEAD
    created: bool = False  # made by this call (else reused)


def shown(name: str) -> str:
    """A name as it may be printed: non-UTF-8 bytes replaced, escapes shown, never obeyed."""
    return terminal_safe(shown_name(name))


def check_name(name: str) -> str:
    if not re.fullmatch(_NAME, name) or ".." in name or name.endswith((".lock", ".")):
        raise WorktreeError(
            f'The worktree name "{shown(name)}" may use only letters, digits, ".", "_" and "-" (at most 64), '
            'must start with a letter or digit, and may not contain ".." or end in "." or ".lock".'
        )
    return name


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[str]:
    git = os.environ.get("FLUE_GIT") or shutil.which("git")
    if not git:
        raise WorktreeError("Worktree sessions need git, and git is not installed.")
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROP}
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    safe = ["-c", "core.hooksPath=" + os.devnull, "-c", "core.fsmonitor=false", "-c", "submodule.recurse=false"]
    if args[0] != "config":
        safe += _no_repo_filters(git, safe, cwd, env)
    return _run([git, *safe, *args], cwd, env)


def _no_repo_filters(git: str, safe: list[str], cwd: str, env: dict[str, str]) -> list[str]:
    """`-c` overrides emptying every filter driver the repository's own config (local, worktree,
    their includes) defines: an empty command is no filter, and `required=false` lets the file
    through unfiltered."""
    proc = _run([git, *safe, "config", "--show-scope", "--name-only", "--get-regexp", r"^filter\."], cwd, env)
    drivers = {
        key[len("filter.") : key.rfind(".")]
        for scope, _, key in (ln.partition("\t") for ln in proc.stdout.splitlines())
        if scope in ("local", "worktree") and key.count(".") >= 2
    }
    return [arg for d in sorted(drivers) for k, v in _EMPTY_FILTER for arg in ("-c", f"filter.{d}.{k}{v}")]


_EMPTY_FILTER = (("smudge", "="), ("clean", "="), ("process", "="), ("required", "=false"))


def _run(argv: list[str], cwd: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="surrogateescape",
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorktreeError(f"git could not run in {shown(cwd)}: {exc}.") from None


def _first_line(proc: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
    # git may say what it is doing first ("Preparing worktree …"): the reason is its fatal/error line
    lines = [ln for ln in lines if ln.startswith(("fatal:", "error:"))] or lines
    text = lines[0] if lines else f"git exited with code {proc.returncode}"
    return shown(text.removeprefix("fatal: ").removeprefix("error: ").rstrip("."))


def _registered(cwd: str) -> list[tuple[str, str | None]]:
    """git's worktrees of the repository `cwd` is in, (path, branch), the main working tree first."""
    proc = _git(["worktree", "list", "--porcelain"], cwd)
    if proc.returncode != 0:
        raise WorktreeError(f"{shown(cwd)} is not inside a git repository, which worktree sessions need.")
    out: list[tuple[str, str | None]] = []
    for block in proc.stdout.split("\n\n"):
        fields = dict((ln.split(" ", 1) + [""])[:2] for ln in block.splitlines() if ln)
        if "worktree" in fields:
            branch = fields.get("branch", "").removeprefix("refs/heads/") or None
            if fields.get("locked") == "initializing":  # `git worktree add` did not finish (killed)
                branch = _HALF_MADE
            out.append((fields["worktree"], branch))
    if not out:
        raise WorktreeError(f"{shown(cwd)} is not inside a git repository, which worktree sessions need.")
    return out


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _home_dir(home: str, create: bool) -> bool:
    """The `<repo>.worktrees` directory is flue's: a symlink or a file there is refused."""
    if not os.path.lexists(home):
        if not create:
            return False
        try:
            os.mkdir(home, 0o755)
        except OSError as exc:
            raise WorktreeError(f"Could not create {shown(home)}: {exc.strerror or exc}.") from None
        return True
    if os.path.islink(home) or not os.path.isdir(home):
        kind = "a symlink" if os.path.islink(home) else "not a directory"
        raise WorktreeError(f"{shown(home)} is {kind}; flue keeps worktrees there only in a real directory.")
    return True


def enter(name: str, cwd: str) -> Worktree:
    """The worktree NAME of the repository `cwd` is in: reused if git has it there, else created."""
    check_name(name)
    known = _registered(cwd)
    home = known[0][0].rstrip("/") + SUFFIX
    path = os.path.join(home, name)
    for wt_path, branch in known[1:]:
        if _same(wt_path, path) and os.path.isdir(path) and not os.path.islink(path):
            if branch == _HALF_MADE:
                raise WorktreeError(
                    f"The worktree {shown(name)} was left half-made (its creation was stopped); "
                    f"remove it with: git worktree remove --force {shown(path)}"
                )
            return Worktree(name, wt_path, branch)
    _home_dir(home, create=True)
    if os.path.lexists(path):
        kind = "a symlink" if os.path.islink(path) else "something git does not know as a worktree"
        raise WorktreeError(f"{shown(path)} is {kind}; move it away or choose another worktree name.")
    _git(["worktree", "prune"], cwd)  # a worktree deleted by hand stays registered until pruned
    has_branch = _git(["show-ref", "--verify", "--quiet", f"refs/heads/{name}"], cwd).returncode == 0
    args = ["worktree", "add", path, name] if has_branch else ["worktree", "add", "-b", name, path]
    proc = _git(args, cwd)
    if proc.returncode != 0:
        raise WorktreeError(f"Could not create the worktree {shown(name)}: {_first_line(proc)}.")
    return Worktree(name, path, name, created=True)


def listed(cwd: str) -> list[Worktree]:
    """The repository's worktree sessions: git's worktrees inside `<repo>.worktrees/`."""
    known = _registered(cwd)
    home = known[0][0].rstrip("/") + SUFFIX
    if not _home_dir(home, create=False):
        return []
    out = []
    for wt_path, branch in known[1:]:
        if _same(os.path.dirname(wt_path.rstrip("/")), home):
            out.append(
                Worktree(os.path.basename(wt_path.rstrip("/")), wt_path, None if branch == _HALF_MADE else branch)
            )
    return out


def changes(path: str) -> list[str]:
    """What `git status` reports in a worktree (uncommitted or untracked files), one line each."""
    proc = _git(["status", "--porcelain", "--untracked-files=normal"], path)
    if proc.returncode != 0:
        raise WorktreeError(f"Could not read the state of {shown(path)}: {_first_line(proc)}.")
    return [ln for ln in proc.stdout.splitlines() if ln.strip()]


def remove(name: str, cwd: str) -> Worktree:
    """Remove the worktree NAME (its branch stays); refused while it has uncommitted changes."""
    check_name(name)
    found = next((w for w in listed(cwd) if w.name == name), None)
    if found is None:
        raise WorktreeError(f'No worktree session named "{shown(name)}" (see: flue worktree list).')
    if os.path.islink(found.path) or not os.path.isdir(found.path):
        raise WorktreeError(f"{shown(found.path)} is not a directory any more; git worktree prune forgets it.")
    dirty = changes(found.path)
    if dirty:
        raise WorktreeError(
            f"The worktree {shown(name)} has uncommitted changes ({len(dirty)} file{'s' if len(dirty) != 1 else ''}); "
            "commit or discard them first."
        )
    proc = _unmake(found.path, cwd)
    if proc.returncode != 0:
        raise WorktreeError(f"Could not remove the worktree {shown(name)}: {_first_line(proc)}.")
    return found


def _unmake(path: str, cwd: str) -> subprocess.CompletedProcess[str]:
    """`git worktree remove PATH`, then `<repo>.worktrees` too once nothing at all is left in it
    (rmdir removes only an empty directory, and never follows a symlink)."""
    proc = _git(["worktree", "remove", path], cwd)
    home = os.path.dirname(path.rstrip("/"))
    if proc.returncode == 0 and home.endswith(SUFFIX):
        with contextlib.suppress(OSError):  # another worktree or anyone's file is there: it stays
            os.rmdir(home)
    return proc


class TaskTrees:
    """`isolation: worktree` agents: each task gets a fresh worktree `task-…` (a branch of the same
    name, from the parent's HEAD). One the task left as it found it (no changes, no new commit) is
    removed again, branch and all; one it changed stays, and the task's answer names it. git runs
    in a worker thread: a large checkout must not stall the app."""

    def __init__(self) -> None:
        self._bases: dict[str, str] = {}  # worktree path -> the commit it started from

    def needless(self, session: object) -> bool:
        """A plan-mode task changes nothing, so it reads the parent's checkout instead: no worktree
        made, none left (its child is held in plan mode: tools/task.py)."""
        from flue_tui.permissions.policy import policy_of

        policy = policy_of(session)
        return policy is not None and policy.mode == "plan"

    async def enter(self, cwd: str) -> Worktree:
        import asyncio

        return await asyncio.to_thread(self._enter, cwd)

    def _enter(self, cwd: str) -> Worktree:
        from flue_tui.core.ids import new_id

        tree = enter("task-" + new_id("t")[-10:].lower(), cwd)
        self._bases[tree.path] = _git(["rev-parse", "HEAD"], tree.path).stdout.strip()
        return tree

    async def leave(self, tree: Worktree, cwd: str) -> str:
        """A note for the task's answer: "" when the worktree went, else where the work is."""
        import asyncio

        return await asyncio.to_thread(self._leave, tree, cwd)

    def _leave(self, tree: Worktree, cwd: str) -> str:
        base = self._bases.pop(tree.path, "")
        kept = (
            f"\n\n(This task worked in the git worktree {tree.path}, on branch {tree.branch}; its changes are there.)"
        )
        try:
            head = _git(["rev-parse", "HEAD"], tree.path).stdout.strip()
            if changes(tree.path) or not base or head != base:
                return kept
        except WorktreeError:
            return kept
        if _unmake(tree.path, cwd).returncode == 0 and tree.branch:
            _git(["branch", "-D", tree.branch], cwd)  # at the base commit: nothing of the task's is lost
        return ""
