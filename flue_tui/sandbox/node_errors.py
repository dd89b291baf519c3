"""Render OS errors with Node's (libuv's) message format, which is what Flue's model sees."""

from __future__ import annotations

import errno as _errno
import os

from flue_tui.core.abort import ToolError

# libuv's uv_strerror texts for the codes a file tool can meet.
_UV_MESSAGES: dict[str, str] = {
    "E2BIG": "argument list too long",
    "EACCES": "permission denied",
    "EAGAIN": "resource temporarily unavailable",
    "EBADF": "bad file descriptor",
    "EBUSY": "resource busy or locked",
    "ECANCELED": "operation canceled",
    "EEXIST": "file already exists",
    "EFBIG": "file too large",
    "EINTR": "interrupted system call",
    "EINVAL": "invalid argument",
    "EIO": "i/o error",
    "EISDIR": "illegal operation on a directory",
    "ELOOP": "too many symbolic links encountered",
    "EMFILE": "too many open files",
    "ENAMETOOLONG": "name too long",
    "ENFILE": "file table overflow",
    "ENODEV": "no such device",
    "ENOENT": "no such file or directory",
    "ENOMEM": "not enough memory",
    "ENOSPC": "no space left on device",
    "ENOTDIR": "not a directory",
    "ENOTEMPTY": "directory not empty",
    "ENOTSUP": "operation not supported on socket",
    "ENXIO": "no such device or address",
    "EOVERFLOW": "value too large for defined data type",
    "EPERM": "operation not permitted",
    "EPIPE": "broken pipe",
    "EROFS": "read-only file system",
    "ESPIPE": "invalid seek",
    "ETXTBSY": "text file is busy",
    "EXDEV": "cross-device link not permitted",
}


def node_message(err: OSError, syscall: str, path: str | None) -> str:
    """`CODE: description, syscall 'path'` (path omitted when None), like a Node fs error."""
    code = _errno.errorcode.get(err.errno or 0, "UNKNOWN")
    desc = _UV_MESSAGES.get(code)
    if desc is None:
        desc = os.strerror(err.errno).lower() if err.errno else "unknown error"
    text = f"{code}: {desc}, {syscall}"
    return f"{text} '{path}'" if path is not None else text


def read_error(err: OSError, path: str) -> ToolError:
    """Error for reading `path`: Node opens directories fine and fails in read(), without a path."""
    if err.errno == _errno.EISDIR:
        return ToolError(node_message(err, "read", None))
    return ToolError(node_message(err, "open", path))


def write_error(err: OSError, path: str) -> ToolError:
    return ToolError(node_message(err, "open", path))
