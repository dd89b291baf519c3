"""Which directories the user trusts, and for which files: ~/.local/share/flue/trusted-projects.json.

A directory is keyed by its real path (a symlink or `..` cannot borrow another folder's trust). Trust
covers named files of that directory by their SHA-256: when a trusted file's bytes change (a `git
pull` bringing a new `.flue/config.toml`), its trust lapses and the user is asked again. Other
callers (a project's `.mcp.json`, later) trust their own file the same way.

The store is the user's own file, written atomically with mode 0600. Anything wrong with it
(missing, unreadable, not the expected JSON) reads as "nothing is trusted": failing closed only costs
a question.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from flue_tui.config.errors import ConfigError
from flue_tui.config.paths import trust_file
from flue_tui.core.files import open_regular, read_own

State = Literal["trusted", "untrusted", "changed"]


class TrustError(ConfigError):
    """The trust store cannot be read or written; the message says which file and why."""


@dataclass(frozen=True, slots=True)
class TrustEntry:
    """A trusted directory and the digest of each of its files when the user trusted it."""

    directory: str
    files: tuple[tuple[str, str], ...]  # (path relative to the directory, sha256 when trusted)
    trusted_at: str


def store_path() -> Path:
    return trust_file()


def directory_key(directory: str | os.PathLike[str]) -> str:
    return os.path.realpath(directory)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One read of a project file: the bytes its reader parses, and whether those very bytes are
    trusted. Hashing one read and parsing another let a file swapped in between pass as trusted."""

    path: Path
    data: bytes | None  # None: no such file, or it could not be read (`error` says why)
    sha256: str | None
    state: State
    error: str | None = None


def read(directory: str | os.PathLike[str], relpath: str, roots: tuple[str, ...] | None = None) -> Snapshot:
    """Read `relpath` of `directory` once (the one bounded open of flue's own files) and judge
    those bytes against the trust list."""
    path = Path(directory) / relpath
    try:
        data: bytes | None = read_own(str(path), roots)
        error = None
    except FileNotFoundError:
        data, error = None, None
    except OSError as exc:
        data, error = None, str(exc.strerror or exc)
    sha = hashlib.sha256(data).hexdigest() if data is not None else None
    return Snapshot(path, data, sha, _judge(directory, relpath, sha), error)


MAX_DIGEST = 256 * 1024 * 1024  # a program a server runs (a bundled server.js) may be big; a 10 GB sparse file is not


def digest(path: Path) -> str | None:
    """SHA-256 of the file's bytes, or None when it cannot be read (then nothing of it is trusted):
    regular files only, hashed as read (never held whole), at most MAX_DIGEST bytes."""
    sha, size = hashlib.sha256(), 0
    try:
        with open_regular(str(path)) as fh:
            while chunk := fh.read(1 << 20):
                size += len(chunk)
                if size > MAX_DIGEST:
                    return None
                sha.update(chunk)
    except OSError:
        return None
    return sha.hexdigest()


def _load(strict: bool = False) -> dict[str, Any]:
    path = store_path()
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
    except (FileNotFoundError, NotADirectoryError):  # no list yet (a file where its directory goes: _save says so)
        return {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        if strict:
            raise TrustError(f"{path} is not a readable trust list ({exc}); move it aside to start afresh.") from None
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        if strict:
            raise TrustError(f"{path} is not a trust list written by flue; move it aside to start afresh.")
        return {}
    return projects


def _save(projects: dict[str, Any]) -> None:
    path = store_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".trusted-", dir=path.parent)  # mkstemp creates it 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"version": 1, "projects": projects}, fh, indent=2, sort_keys=True)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise TrustError(f"Cannot save trust to {path}: {exc.strerror or exc}") from None


def state(directory: str | os.PathLike[str], relpath: str) -> State:
    """Whether `relpath` inside `directory` is trusted as it is now on disk (for wording only: what
    applies a file's settings judges the bytes it parses, with `read`)."""
    return _judge(directory, relpath, digest(Path(directory_key(directory)) / relpath))


def judge(directory: str | os.PathLike[str]) -> Callable[[str, bytes], State]:
    """Whether bytes read by the caller as a file of `directory` are trusted: the list is read once,
    for a caller judging many files (a folder of commands)."""
    entry = _load().get(directory_key(directory))
    raw = entry.get("files") if isinstance(entry, dict) else None
    files = raw if isinstance(raw, dict) else {}

    def judged(relpath: str, data: bytes) -> State:
        if relpath not in files:
            return "untrusted"
        return "trusted" if hashlib.sha256(data).hexdigest() == files[relpath] else "changed"

    return judged


def _judge(directory: str | os.PathLike[str], relpath: str, sha: str | None) -> State:
    entry = _load().get(directory_key(directory))
    files = entry.get("files") if isinstance(entry, dict) else None
    if not isinstance(files, dict) or relpath not in files:
        return "untrusted"
    return "trusted" if sha is not None and sha == files[relpath] else "changed"


def grant(directory: str | os.PathLike[str], files: Mapping[str, str | None]) -> None:
    """Trust these files of `directory`: each with the SHA-256 of the bytes the user was shown (so a
    file that changed while they were asked is not trusted), or None for its bytes now."""
    key = directory_key(directory)
    projects = _load(strict=True)
    raw = projects.get(key)
    entry: dict[str, Any] = raw if isinstance(raw, dict) else {}
    raw_files = entry.get("files")
    known = dict(raw_files) if isinstance(raw_files, dict) else {}
    for rel, sha in files.items():
        sha = sha or digest(Path(key) / rel)
        if sha is not None:
            known[rel] = sha
    projects[key] = {"files": known, "trusted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _save(projects)


def revoke(directory: str | os.PathLike[str]) -> bool:
    projects = _load(strict=True)
    if projects.pop(directory_key(directory), None) is None:
        return False
    _save(projects)
    return True


def entries() -> list[TrustEntry]:
    """Every trusted directory (raises TrustError when the store is damaged, for `flue doctor`)."""
    out = []
    for directory, entry in sorted(_load(strict=True).items()):
        if not isinstance(entry, dict):
            continue
        raw_files = entry.get("files")
        files: dict[str, Any] = raw_files if isinstance(raw_files, dict) else {}
        out.append(
            TrustEntry(
                directory, tuple(sorted((str(k), str(v)) for k, v in files.items())), str(entry.get("trusted_at", ""))
            )
        )
    return out
