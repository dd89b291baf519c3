"""The submodules a git index names (its gitlinks), read from the index file itself.

`git status` (and `diff`) recurse into every gitlink whose directory holds a repository, and the git
run there reads that repository's own config: a nested checkout's `sub/.git/config` naming
core.fsmonitor runs it from the outer `git status`. Such a repository need not live under
`.git/modules`, so the config check asks the index where they are. Only the plain index formats
(versions 2 to 4, no split index) are read; anything else is None, "cannot tell", which asks.
"""

from __future__ import annotations

import os

from flue_tui.core.files import open_regular

_MAX_INDEX = 256 * 1024 * 1024
_GITLINK = 0o160000
_HASH_TAIL = 20  # the trailing checksum (SHA-1; a SHA-256 index has 32, read as an extension: asks)


def gitlinks(git_dir: str) -> list[str] | None:
    """The index's gitlink paths (relative to the work tree, as bytes decoded for the file system),
    [] without an index, None when the index is not one read here."""
    try:
        with open_regular(os.path.join(git_dir, "index")) as fh:  # a FIFO must not hang the policy
            data = fh.read(_MAX_INDEX + 1)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    if len(data) > _MAX_INDEX or len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = int.from_bytes(data[4:8], "big"), int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    pos, out, path = 12, [], b""
    for _ in range(count):
        if pos + 62 > len(data):
            return None
        mode = int.from_bytes(data[pos + 24 : pos + 28], "big")
        flags = int.from_bytes(data[pos + 60 : pos + 62], "big")
        start = pos + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
        strip = 0
        if version == 4:  # the path is the previous one less `strip` bytes, plus what follows
            strip, start = _varint(data, start)
            if strip > len(path):
                return None
        end = data.find(b"\0", start)
        if end < 0:
            return None
        path = path[: len(path) - strip] + data[start:end] if version == 4 else data[start:end]
        if mode & 0o170000 == _GITLINK:
            out.append(os.fsdecode(path))
        # v2/v3 pad an entry with 1 to 8 NULs to a multiple of 8; v4 has the one NUL
        pos = end + 1 if version == 4 else pos + ((end - pos + 8) & ~7)
    while pos + 8 <= len(data) - _HASH_TAIL:  # extensions: a split index keeps entries elsewhere
        if data[pos : pos + 4] == b"link":
            return None
        pos += 8 + int.from_bytes(data[pos + 4 : pos + 8], "big")
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """git's offset varint (read-cache.c's decode_varint) at `pos`: (value, position after it)."""
    if pos >= len(data):
        return 1 << 62, pos  # no more bytes: a value past any path, which the caller refuses
    c = data[pos]
    value = c & 127
    while c & 128:
        pos += 1
        if pos >= len(data):
            return 1 << 62, pos
        c = data[pos]
        value = ((value + 1) << 7) + (c & 127)
    return value, pos + 1
