"""`--sandbox workspace` (the flux seed's contained workspace): every path argument must resolve,
symlinks followed, inside the working directory; bash commands pass the command checks first and
run inside bubblewrap where it works.

Two layers: WorkspaceGuard refuses a call before it starts (it is consulted by the permission
policy, so the refusal is logged like any other), and WorkspaceSandbox re-checks every path the
file tools open, so a tool that forgets to ask still cannot leave the workspace.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
from collections import deque
from dataclasses import dataclass
from typing import Any

from flue_tui.core import files
from flue_tui.core.abort import ToolError
from flue_tui.core.traits import traits_of
from flue_tui.sandbox.command_checks import CommandChecker
from flue_tui.sandbox.local import LocalSandbox, _resolve_shell, clean_env, posix_resolve

MAX_SYMLINK_HOPS = 40  # Linux's own limit (ELOOP)
PROBE_TIMEOUT_S = 10
NO_BWRAP_NOTICE = (
    "--sandbox workspace: {reason}, so bash is not isolated; only the path and command "
    "checks apply. (On Debian/Ubuntu: apt-get install bubblewrap.)"
)


# ---- bubblewrap --------------------------------------------------------------------------------
# bash sees the host read-only except the workspace and a private /tmp, with no network unless
# --allow-network. The sandbox's ordinary shell runs `exec bwrap ... -- bash -c CMD`: it only
# replaces itself with bwrap, so the process group LocalSandbox kills on timeout or abort is the
# same one, and no text of the command runs outside the box.
#
# The box is a boundary for root too (CI containers, devcontainers): every capability is dropped,
# so `mount -o remount,rw /` fails and the read-only host stays read-only; a user namespace is
# added where the kernel allows one; its own PID namespace and /proc hide flue's process (and its
# keys) and every other process on the host; and it dies with flue, taking the whole PID namespace.
_ISOLATION = ("--unshare-user-try", "--unshare-pid", "--cap-drop", "ALL", "--die-with-parent")


def _private_run() -> list[str]:
    """/run holds the host's service sockets (systemd, D-Bus, docker, postgres), and connect() to a
    socket works on a read-only mount: a command could ask a service to act outside the box. So
    the box gets an empty /run; resolv.conf often points into it, and that one file stays."""
    args: list[str] = []
    for run in ("/run", "/var/run"):
        if os.path.isdir(run) and not os.path.islink(run):
            args += ["--tmpfs", run]
    resolv = os.path.realpath("/etc/resolv.conf")
    if args and resolv.startswith(("/run/", "/var/run/")):
        args += ["--ro-bind-try", resolv, resolv]
    return args


_probes: dict[tuple[str, bool], str | None] = {}  # (bwrap path, network) -> problem text or None


@dataclass(frozen=True, slots=True)
class Bwrap:
    """The bubblewrap binary `--sandbox workspace` runs commands in, with or without network."""

    path: str
    network: bool = False

    def argv(self, roots: tuple[str, ...], cwd: str, shell: str, command: str) -> list[str]:
        args = [
            self.path,
            *_ISOLATION,
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--tmpfs",
            "/tmp",
            *_private_run(),
        ]
        # Bound after the private /tmp and /run, so a workspace under them stays the real, writable one.
        for path in dict.fromkeys(roots):
            args += ["--bind", path, path]
        if not self.network:
            args.append("--unshare-net")
        args += ["--chdir", cwd, "--", shell, "-c", command]
        return args

    def wrap(self, roots: tuple[str, ...], cwd: str, shell: str, command: str) -> str:
        """The shell line that runs `command` inside the box, with `roots` writable."""
        return "exec " + shlex.join(self.argv(roots, cwd, shell, command))


def probe(path: str, network: bool) -> str | None:
    """None when bwrap runs here with our flags, else why not (e.g. no user namespaces)."""
    key = (path, network)
    if key not in _probes:
        argv = Bwrap(path, network).argv((), "/", "/bin/sh", "true")
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL, env=clean_env()
            )
            lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
            problem = None if done.returncode == 0 else lines[-1]
        except (OSError, subprocess.SubprocessError) as exc:
            problem = str(exc) or type(exc).__name__
        _probes[key] = problem
    return _probes[key]


def detect(network: bool = False, which: str | None = None) -> tuple[Bwrap | None, str | None]:
    """(Bwrap, None) when usable; (None, reason) when bwrap is missing or cannot run here."""
    path = which if which is not None else shutil.which("bwrap")
    if not path:
        return None, "bubblewrap (bwrap) is not installed"
    problem = probe(path, network)
    if problem is not None:
        return None, f"bubblewrap cannot run here ({problem})"
    return Bwrap(path, network), None


class WorkspaceEscape(ToolError):
    """The model-visible refusal, worded as the seed words it."""

    def __init__(self, path: str) -> None:
        super().__init__(f"path escapes workspace boundary: {path}")


class _Loop(Exception):
    pass


def real_path(path: str) -> str:
    """Resolve every symlink of an absolute path, the way the kernel would; missing tails are kept
    as written. Unlike os.path.realpath, a symlink loop raises instead of passing through."""
    parts = deque(path.split("/"))
    resolved = "/"
    hops = 0
    while parts:
        part = parts.popleft()
        if part in ("", "."):
            continue
        if part == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, part)
        try:
            mode = os.lstat(candidate).st_mode
        except OSError:
            resolved = candidate  # does not exist (yet): nothing below it can be a link
            continue
        if stat.S_ISLNK(mode):
            hops += 1
            if hops > MAX_SYMLINK_HOPS:
                raise _Loop(path)
            target = os.readlink(candidate)
            if target.startswith("/"):
                resolved = "/"
            parts.extendleft(reversed(target.split("/")))
        else:
            resolved = candidate
    return resolved


def inside(real_root: str, real: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip("/") + "/")


def contain(real_root: str | tuple[str, ...], base: str, path: str) -> str:
    """The lexical absolute path of `path` (relative to base) if its real location is inside the
    workspace (one of its roots, with --add-dir); raises WorkspaceEscape naming `path` as given
    otherwise (symlink loops included)."""
    roots = (real_root,) if isinstance(real_root, str) else real_root
    lexical = posix_resolve(base, path)
    # Checked both ways: local() opens the lexically collapsed path, while a shell (grep, glob)
    # lets the kernel resolve `link/..` after following the link.
    raw = path if path.startswith("/") else f"{base}/{path}"
    try:
        real_lexical, real_raw = real_path(lexical), real_path(raw)
        escaped = not any(inside(root, real_lexical) and inside(root, real_raw) for root in roots)
    except (_Loop, OSError):
        escaped = True
    if escaped:
        raise WorkspaceEscape(path)
    return lexical


class WorkspaceSandbox(LocalSandbox):
    """LocalSandbox confined to `root`: contained paths, bash inside bubblewrap when available."""

    def __init__(
        self,
        cwd: str | None = None,
        env: dict[str, str | None] | None = None,
        *,
        root: str,
        bwrap: Bwrap | None = None,
        extra_roots: tuple[str, ...] = (),
    ) -> None:
        super().__init__(cwd, env)
        self.root = posix_resolve(os.getcwd(), root)
        self.real_root = real_path(self.root)
        # --add-dir: more directories the tools may use, each contained exactly like the root.
        self.extra_roots = tuple(posix_resolve(os.getcwd(), r) for r in extra_roots)
        self.real_roots = (self.real_root, *(real_path(r) for r in self.extra_roots))
        self.bwrap = bwrap
        contain(self.real_roots, self.root, self.cwd)  # a task child may not start outside either

    def resolve_path(self, path: str) -> str:
        return contain(self.real_roots, self.cwd, path)

    def open_file(self, path: str, resolved: str, *, write: bool = False, parents: bool = False) -> int:
        # resolve_path checked the path, but a symlink can be swapped before the open: the open
        # itself walks with O_NOFOLLOW and refuses whatever ends up outside.
        try:
            real = real_path(resolved)
        except (_Loop, OSError):
            raise WorkspaceEscape(path) from None
        root = next((r for r in self.real_roots if inside(r, real)), self.real_root)
        try:
            return files.open_beneath(root, resolved, write=write, parents=parents)
        except files.Escape:
            raise WorkspaceEscape(path) from None

    async def exec(self, command: str, *, cwd: str | None = None, **kw: Any) -> Any:
        if self.bwrap is not None:
            run_cwd = self.resolve_path(cwd) if cwd else self.cwd
            # Both spellings of the root stay writable: the one we cd into and the one it links to.
            roots = (self.real_root, self.root, *self.real_roots[1:], *self.extra_roots)
            command = self.bwrap.wrap(roots, run_cwd, _resolve_shell(), command)
        return await super().exec(command, cwd=cwd, **kw)


class WorkspaceGuard:
    """The permission policy's hard checks: every path argument a tool's traits name is contained
    (a task's cwd too, so a refused one is a permission denial like any other path), and a shell
    command passes the command checks."""

    def __init__(self, root: str, checker: CommandChecker | None = None, extra_roots: tuple[str, ...] = ()) -> None:
        self.root = posix_resolve(os.getcwd(), root)
        self.real_root = real_path(self.root)
        self.real_roots = (self.real_root, *(real_path(posix_resolve(os.getcwd(), r)) for r in extra_roots))
        self.checker = checker or CommandChecker()

    def check(self, tool_name: str, args: dict[str, Any], tool: object) -> str | None:
        traits = traits_of(tool)
        base = getattr(getattr(tool, "sandbox", None), "cwd", None) or self.root
        for value in traits.path_values(args):
            try:
                contain(self.real_roots, base, value)
            except WorkspaceEscape as exc:
                return str(exc)
        command = traits.subject_of(args) if traits.shell else None
        if command is None and traits.kind == "execute":
            # Another tool that executes (an MCP server's) with a `command` argument is held to the
            # same checks, as before tools declared a shell subject: never looser than that.
            command = args.get("command") if isinstance(args.get("command"), str) else None
        return self.checker.check(command) if command is not None else None


def workspace_sandbox(
    cwd: str, *, root: str, env: dict[str, str | None] | None, network: bool, extra_roots: tuple[str, ...] = ()
) -> tuple[WorkspaceSandbox, str | None]:
    """The sandbox plus, when bubblewrap is unavailable, the one-time notice saying so."""
    bwrap, reason = detect(network)
    notice = NO_BWRAP_NOTICE.format(reason=reason) if bwrap is None else None
    return WorkspaceSandbox(cwd, env, root=root, bwrap=bwrap, extra_roots=extra_roots), notice


def make_sandbox(settings: Any, cwd: str, notices: list[str]) -> LocalSandbox:
    """The sandbox settings ask for; the first time bubblewrap turns out unusable, a notice is added."""
    env = dict(settings.extra_env) or None
    if getattr(settings, "sandbox", "local") != "workspace":
        return LocalSandbox(cwd, env=env)
    sandbox, notice = workspace_sandbox(
        cwd,
        root=settings.cwd,
        env=env,
        network=settings.allow_network,
        extra_roots=tuple(getattr(settings, "add_dirs", ()) or ()),
    )
    if notice is not None and notice not in notices:
        notices.append(notice)
    return sandbox


def workspace_guard(settings: Any, blocklist: list[str], default_blocklist: bool = True) -> WorkspaceGuard | None:
    """The hard checks for `--sandbox workspace` (None otherwise), with the configured blocklist."""
    if getattr(settings, "sandbox", "local") != "workspace":
        return None
    from flue_tui.sandbox.command_checks import blocklist_from

    return WorkspaceGuard(
        settings.cwd,
        CommandChecker(blocklist_from(blocklist, defaults=default_blocklist)),
        extra_roots=tuple(getattr(settings, "add_dirs", ()) or ()),
    )
