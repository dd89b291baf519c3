"""How the sandboxes open files for the file tools: one place that decides what may be opened.

* Regular files only. A FIFO, socket or device is refused before it is opened (a FIFO opened for
  reading blocks until a writer appears, /dev/zero never ends, and opening a device can act on it);
  the open itself uses O_NONBLOCK and fstat re-checks, so a file swapped in after the stat is
  still refused and never blocks.
* Beneath a root (`--sandbox workspace`): the path is walked one component at a time from a held
  directory descriptor with O_NOFOLLOW, symlinks are resolved here, by hand, and whatever is opened
  or created must really lie under the root. Checking a path and then opening it by name lets a
  process that flips a symlink in between send the write outside; a descriptor walk cannot be
  redirected that way.

Errors are OSErrors with the kernel's errno (the callers render Node's text), NotRegular for a
special file, and Escape when the walk leaves the root.

Files flue reads for itself (AGENTS.md, skills, agents, config, .mcp.json, .gitignore, `@path`)
go through `read_own`: the same open (beneath the workspace roots under `--sandbox workspace`),
and never more than MAX_OWN_READ bytes, so a sparse 10 GB AGENTS.md costs what a small one does.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from typing import BinaryIO

from flue_tui.core.abort import ToolError

MAX_SYMLINK_HOPS = 40  # Linux's own limit (ELOOP)
# Lets a directory be walked without read permission on it, as the kernel does (Linux only).
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
# No O_TRUNC: the file is truncated only once fstat has shown it is a regular file.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC

# A socket is left out: open() refuses it with ENXIO, which is what Flue (Node) reports for it.
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class NotRegular(ToolError):
    """The model-visible refusal of a FIFO or device."""

    def __init__(self, path: str, mode: int) -> None:
        self.kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        super().__init__(f"Not a regular file: {path} is {self.kind}; only regular files can be read or written.")


# What flue reads of a file it reads for itself: instructions, skills, agents and config are text a
# person wrote; 1 MiB of it is ~250k tokens, more than any context window. A bigger file is refused
# in one sentence rather than read whole (a sparse file, /proc-like sources).
MAX_OWN_READ = 1024 * 1024


class SpecialFile(OSError):
    """A refusal of one of flue's own reads of repository files, as the OSError those callers
    already handle (a FIFO named AGENTS.md must not hang start-up); str() is the sentence."""

    def __str__(self) -> str:
        return str(self.strerror)


class OutsideRoots(SpecialFile):
    """Under `--sandbox workspace`, the file (through a symlink) lies outside the workspace."""


class TooLarge(SpecialFile):
    """The file is larger than flue reads of a file it reads for itself."""


class Escape(Exception):
    """The walk would open or create something outside the root."""


def _check_kind(path: str, mode: int) -> None:
    if stat.S_ISDIR(mode):
        # Node opens a directory for reading and fails in read(); writing fails in open().
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    if stat.S_ISSOCK(mode):
        raise OSError(errno.ENXIO, os.strerror(errno.ENXIO))
    if not stat.S_ISREG(mode):
        raise NotRegular(path, mode)


def refuse_special(path: str) -> None:
    """NotRegular if `path` (symlinks followed) is a FIFO or device: for a search program, which
    would read one named on its command line until it ends, i.e. forever."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # the program reports what is wrong with it
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise NotRegular(path, mode)


def blocking_file(root: str, names: tuple[str, ...], *, above: bool = False) -> str | None:
    """The first file called one of `names` below `root` (and in its parent folders, `above`)
    that is a FIFO, socket or device, or a symlink to one: git and rg open the ignore and
    attribute files of each folder they walk with a blocking open, so they wait for ever on one."""
    places = [os.path.dirname(root.rstrip("/")) or "/"] if above else []
    while above and places[-1] != (up := os.path.dirname(places[-1])):
        places.append(up)
    for top in places:
        for name in names:
            if not _regular_or_none(os.path.join(top, name)):
                return os.path.join(top, name)
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]  # a repository's own folder: neither reads these there
        for name in names:
            if name in files and not _regular_or_none(os.path.join(top, name)):
                return os.path.relpath(os.path.join(top, name), root)
    return None


def _regular_or_none(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # not there, or a dangling symlink: nothing waits on it


def _finish(fd: int, path: str, write: bool) -> int:
    """Re-check what was really opened, truncate a file opened for writing, go back to blocking."""
    try:
        _check_kind(path, os.fstat(fd).st_mode)
        if write:
            os.ftruncate(fd, 0)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: str, *, write: bool = False, parents: bool = False) -> int:
    """A descriptor of the regular file at absolute `path` (local(): symlinks followed as usual).
    `parents` creates missing parent directories first (Flue's retry after a failed write)."""
    if parents:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError:
            pass
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not write:
            raise
    else:
        _check_kind(path, mode)
    # The final symlink (if any) was just followed by stat; O_NOFOLLOW would refuse it here.
    flags = (_WRITE_FLAGS if write else _READ_FLAGS) & ~os.O_NOFOLLOW
    return _finish(os.open(path, flags, 0o666), path, write)


def open_regular(path: str) -> BinaryIO:
    """A regular file (symlinks followed) for binary reading, never blocking; SpecialFile (an
    OSError) for a FIFO or device. For a file the user named whose size has no bound (an export);
    a repository file flue reads for itself goes through read_own."""
    try:
        fd = open_file(path)
    except NotRegular as exc:
        raise SpecialFile(errno.EINVAL, f"{exc.kind}, not a regular file", path) from None
    return os.fdopen(fd, "rb")


def read_regular_text(path: str, roots: tuple[str, ...] | None = None) -> str:
    """Path.read_text("utf-8", errors="replace") for a repository file, through read_own."""
    return read_own(path, roots).decode("utf-8", "replace")


def utf8_name(name: str) -> bool:
    """Whether a name from os.listdir is UTF-8 (else it carries surrogate escapes no encoder takes)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 become U+FFFD, as Node's readdir shows them."""
    return os.fsencode(name).decode("utf-8", "replace")


def workspace_roots(sandbox: str, cwd: str, add_dirs: list[str] | tuple[str, ...]) -> tuple[str, ...] | None:
    """The roots flue's own reads keep to: the workspace sandbox's (real paths), or None (local())."""
    if sandbox != "workspace":
        return None
    return tuple(os.path.realpath(d) for d in [cwd, *add_dirs])


def open_within(roots: tuple[str, ...], path: str) -> int:
    """open_beneath for the first of `roots` (real paths) the file lies in; Escape if none."""
    for root in roots:
        try:
            return open_beneath(root, path)
        except Escape:
            continue
    raise Escape(path)


def read_own(path: str, roots: tuple[str, ...] | None = None, limit: int = MAX_OWN_READ) -> bytes:
    """The bytes of a file flue reads for itself, the one way it does: regular files only, never
    blocking, beneath `roots` when given (the workspace sandbox's real roots; None follows symlinks
    like local()), at most `limit` bytes. Refusals are SpecialFile (an OSError) with one sentence."""
    try:
        fd = open_file(path) if roots is None else open_within(roots, os.path.abspath(path))
    except NotRegular as exc:
        raise SpecialFile(errno.EINVAL, f"{exc.kind}, not a regular file", path) from None
    except Escape:
        raise OutsideRoots(errno.EXDEV, "it links outside the workspace (--sandbox workspace)", path) from None
    return _read_limited(fd, path, limit)


def read_own_at(dir_fd: int, name: str, path: str, limit: int = MAX_OWN_READ) -> bytes:
    """read_own for `name` in an open directory (one a walk opened without following links, as
    os.fwalk does): a link there is never followed (ELOOP, an OSError, for the caller to judge),
    so a folder of many files costs one open each, not a walk from "/" per file. `path` words errors."""
    try:
        fd = _finish(os.open(name, _READ_FLAGS, dir_fd=dir_fd), path, False)
    except NotRegular as exc:
        raise SpecialFile(errno.EINVAL, f"{exc.kind}, not a regular file", path) from None
    return _read_limited(fd, path, limit)


def _read_limited(fd: int, path: str, limit: int) -> bytes:
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        size = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
        raise TooLarge(errno.EFBIG, f"it is larger than {size}, the most flue reads of its own files", path)
    return data


def open_beneath(root: str, path: str, *, write: bool = False, parents: bool = False) -> int:
    """Like open_file, but `path` (absolute, lexical) is resolved by hand from "/" with O_NOFOLLOW
    at every step, and the file, and any directory `parents` creates, must lie under `root` (a
    real path: no symlinks in it)."""
    parts = path.split("/")[::-1]  # a stack: next component last
    fd = os.open("/", _DIR_FLAGS)
    where = "/"  # the real path of fd
    hops = 0
    try:
        while parts:
            name = parts.pop()
            if name in ("", "."):
                continue
            if name == "..":
                fd = _swap(fd, os.open("..", _DIR_FLAGS, dir_fd=fd))
                where = os.path.dirname(where)
                continue
            here = os.path.join(where, name)
            last = not any(p not in ("", ".") for p in parts)
            try:
                mode: int | None = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            except FileNotFoundError:
                mode = None
            if mode is not None and stat.S_ISLNK(mode):
                hops = _hop(hops)
                try:
                    target = os.readlink(name, dir_fd=fd)
                except OSError:  # swapped back to a non-link since the stat: look again
                    parts.append(name)
                    continue
                if target.startswith("/"):
                    fd = _swap(fd, os.open("/", _DIR_FLAGS))
                    where = "/"
                parts.extend(target.split("/")[::-1])
                continue
            if last:
                if not _inside(root, here):
                    raise Escape(here)
                if mode is None and not write:
                    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))
                if mode is not None:
                    _check_kind(path, mode)
                try:
                    opened = os.open(name, _WRITE_FLAGS if write else _READ_FLAGS, 0o666, dir_fd=fd)
                except OSError as err:
                    if err.errno in (errno.ELOOP, errno.EMLINK):  # became a symlink: look again
                        hops = _hop(hops)
                        parts.append(name)
                        continue
                    raise
                return _finish(opened, path, write)
            if mode is None and parents:
                if not _inside(root, here):
                    raise Escape(here)
                try:
                    os.mkdir(name, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                fd = _swap(fd, os.open(name, _DIR_FLAGS, dir_fd=fd))
            except OSError as err:
                if err.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, fd):
                    hops = _hop(hops)
                    parts.append(name)  # became a symlink since the stat: look again
                    continue
                raise
            where = here
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))  # the path was "/"
    finally:
        os.close(fd)


def _hop(hops: int) -> int:
    """Count a symlink followed (or a component looked at again after a race); ELOOP past the limit."""
    if hops >= MAX_SYMLINK_HOPS:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    return hops + 1


def _swap(old: int, new: int) -> int:
    os.close(old)
    return new


def _is_link(name: str, fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _inside(root: str, real: str) -> bool:
    return real == root or real.startswith(root.rstrip("/") + "/")


def walk_dirs(root_fd: int, names: list[str], *, create: bool) -> list[int]:
    """Descriptors of root/names[0], root/names[0]/names[1], …, each opened from its parent's
    descriptor with O_NOFOLLOW: a symlink or non-directory anywhere on the way is refused
    (NotADirectoryError / ELOOP), never followed, so nothing done through the last descriptor can
    land outside the root however the tree is swapped meanwhile. `create` makes missing
    directories. For writes that must stay where a checkpoint put them (checkpoints/restore.py);
    the caller closes every descriptor."""
    fds: list[int] = []
    parent = root_fd
    try:
        for name in names:
            if name in ("", ".", "..") or "/" in name:
                raise OSError(errno.EINVAL, f"not a plain path component: {name!r}")
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o777, dir_fd=parent)
                fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
            fds.append(fd)
            parent = fd
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return fds
