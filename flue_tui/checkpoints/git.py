"""Running the `git` binary against flue's own checkpoint store, never the user's repository.

Every call sets GIT_DIR (our bare store), GIT_WORK_TREE (the workspace) and GIT_INDEX_FILE (our
index), and shuts out every configuration file: the workspace's `.git/config` is not ours to run
(a cloned repository could set `core.fsmonitor` to a program), and the user's global settings
(`core.autocrlf`, LFS filters) would change the bytes we store. Attributes are overridden in the
store's `info/attributes` for the same reason.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from flue_tui.core.files import blocking_file

# Highest-precedence attributes: no end-of-line conversion, no clean/smudge filter, no re-encoding,
# whatever the workspace's .gitattributes say. A checkpoint holds the bytes that were on disk.
_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n"
_CONFIG = [
    ("core.autocrlf", "false"),
    ("core.safecrlf", "false"),
    ("core.symlinks", "true"),
    ("core.fsmonitor", "false"),
    ("core.untrackedCache", "true"),
    ("core.quotePath", "false"),
    ("gc.auto", "0"),
    ("index.threads", "true"),
    # No reflogs: they would keep a deleted session's checkpoints reachable, so prune could not free them.
    ("core.logAllRefUpdates", "false"),
]
_IDENTITY = {
    "GIT_AUTHOR_NAME": "flue",
    "GIT_AUTHOR_EMAIL": "flue@localhost",
    "GIT_COMMITTER_NAME": "flue",
    "GIT_COMMITTER_EMAIL": "flue@localhost",
}


class GitMissing(RuntimeError):
    """No usable `git` binary: file checkpoints are off, conversation checkpoints still work."""


class GitFailed(RuntimeError):
    """A git command failed; the message is its first line of stderr."""


def find_git() -> str:
    git = os.environ.get("FLUE_GIT") or shutil.which("git")
    if not git:
        raise GitMissing("git is not installed, so file checkpoints are off (conversation checkpoints still work).")
    return git


class Git:
    """One store (a bare repository) bound to one workspace."""

    def __init__(self, store: Path, workspace: Path, git: str | None = None) -> None:
        self.store = store
        self.workspace = workspace
        self.git = git or find_git()
        # flue.lock's descriptor while this thread holds it, handed to every git child it runs.
        self._local = threading.local()
        self._env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(store),  # no ~/.gitconfig, no credential helpers
            "GIT_DIR": str(store),
            "GIT_WORK_TREE": str(workspace),
            "GIT_INDEX_FILE": str(store / "index"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "LC_ALL": "C",
            **_IDENTITY,
        }

    def ensure(self) -> None:
        """Create the store on first use (idempotent)."""
        if (self.store / "HEAD").exists():
            return
        self.store.mkdir(parents=True, exist_ok=True, mode=0o700)
        env = {k: v for k, v in self._env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")}
        subprocess.run(
            [self.git, "init", "--bare", "--quiet", str(self.store)],
            env=env,
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
        for key, value in _CONFIG:
            self.run(["config", key, value])
        info = self.store / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_ATTRIBUTES, encoding="utf-8")

    def set_excludes(self, text: str) -> None:
        """The store's info/exclude: the workspace repository's own exclude file and the user's
        global ignore file (read from disk, not through config), so we see what `git add -A` sees."""
        path = self.store / "info" / "exclude"
        old = path.read_text(encoding="utf-8", errors="replace") if path.exists() else None
        if old != text:
            path.write_text(text, encoding="utf-8")

    def run(
        self, args: Sequence[str], *, input: bytes | None = None, cwd: Path | None = None, check: bool = True
    ) -> bytes:
        code, out, err = self._wait(args, input, cwd)
        if check and code != 0:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            raise GitFailed(lines[0] if lines else f"git {args[0]} exited with {code}")
        return out

    def succeeds(self, args: Sequence[str], *, input: bytes | None = None) -> bool:
        return self._wait(args, input, None)[0] == 0

    def _wait(self, args: Sequence[str], input: bytes | None, cwd: Path | None) -> tuple[int, bytes, bytes]:
        """Run git to its end. git opens every `.gitignore` and `.gitattributes` it passes with a
        blocking open, so one that is a FIFO stops it for good: while it runs long, the workspace
        is searched for one, and git is stopped, with a sentence naming it, if there is."""
        proc = subprocess.Popen(
            [self.git, *args],
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self._env,
            cwd=cwd or self.workspace,
            pass_fds=self._fds(),
        )
        wait, pending = 1.0, input
        while True:
            try:
                out, err = proc.communicate(pending, timeout=wait)
                return proc.returncode, out, err
            except subprocess.TimeoutExpired:
                pending, wait = None, min(wait * 2, 30.0)
                blocking = blocking_file(str(self.workspace), _READ_IN_EACH_FOLDER)
                if blocking is not None:
                    proc.kill()
                    proc.communicate()
                    raise GitFailed(
                        f"{blocking} is not a regular file, and git waits for ever to read it; "
                        "remove it to get file checkpoints again"
                    ) from None

    def popen(self, args: Sequence[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [self.git, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self._env,
            cwd=self.workspace,
            pass_fds=self._fds(),
        )

    def _held(self) -> int | None:
        return getattr(self._local, "fd", None)

    def _fds(self) -> tuple[int, ...]:
        # A git child holds flue.lock as long as it runs, even if flue is killed under it: so a lock
        # file git left behind is stale exactly when flue.lock can be taken (see `locked`).
        fd = self._held()
        return (fd,) if fd is not None else ()

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One flue at a time per store: two sessions in the same workspace share its index."""
        self.store.mkdir(parents=True, exist_ok=True, mode=0o700)
        if self._held() is not None:
            yield  # already ours (a restore takes its snapshots under its own lock)
            return
        with open(self.store / "flue.lock", "a+b") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            self._local.fd = fh.fileno()
            try:
                self._clear_stale_locks()
                yield
            finally:
                self._local.fd = None
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _clear_stale_locks(self) -> None:
        """Git's own lock files left by a git that was killed (kill -9 of flue's process group
        mid-snapshot): every git that writes this store runs under flue.lock and holds it until it
        exits, so now that we hold it, any such file is stale, and would fail every later checkpoint."""
        names = [self.store / n for n in ("index.lock", "HEAD.lock", "packed-refs.lock", "config.lock")]
        refs = self.store / "refs"
        if refs.is_dir():
            names += [Path(d) / f for d, _dirs, files in os.walk(refs) for f in files if f.endswith(".lock")]
        for path in names:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


# The files git reads in each folder of a work tree as it walks it (attributes, ignore patterns).
_READ_IN_EACH_FOLDER = (".gitignore", ".gitattributes")


def global_excludes() -> str:
    """The user's global ignore file, as git would find it without reading config we shut out:
    `core.excludesFile` from ~/.gitconfig is honoured when it is a plain path."""
    candidates: list[Path] = []
    home = Path(os.path.expanduser("~"))
    for cfg in (home / ".gitconfig", Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "config"):
        with contextlib.suppress(OSError):
            for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, value = line.strip().partition("=")
                if key.strip().lower() == "excludesfile" and value.strip():
                    candidates.append(Path(os.path.expanduser(value.strip().strip('"'))))
    candidates.append(Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git" / "ignore")
    for path in candidates:
        with contextlib.suppress(OSError):
            return path.read_text(encoding="utf-8", errors="replace")
    return ""
