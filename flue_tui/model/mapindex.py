"""Where each model's entry sits in litellm's model map, kept between runs (modelmap.py reads it).

Parsing the whole map (~3.5 MB of JSON) cost ~30 ms of CPU in every process, before a first
request could be sized. The index is a small text file in flue's cache directory: a stamp of the
map file it was made from (its size, times, inode: as Python stamps a .pyc with its source), the
CRC-32 of the rest, then one line per top-level key of the map, the key as JSON and the byte offsets
of the key and of its value. A process reads the map's bytes (~3 ms), checks the stamp, and finds
the line of each key it asks for without parsing the rest (a JSON index and a SHA-256 of the map
cost ~6 ms more).

The index only says where to look; every value still comes from the map's own bytes, and each is
checked where it is found: the key there is the one asked for, between a `{`/`,` and a `:`, found
nowhere else in the map (so not an object nested in another entry under the same name), and the
value is one JSON object ending before a `,`/`}`. A key with no line is not in the map: that the
index is whole is what its CRC-32 vouches for (a damaged file is not used; a key dropped on purpose
by someone who can write flue's cache, who could as well write its config, leaves that model
unpriced, shown as unknown, never mispriced). An index that is missing, corrupt, written
for another map (another litellm), another user's, a symlink, too large, or unreadable (its
directory too) is not used: the map is parsed whole, as before, and a fresh index written beside
it when that works. So a broken index costs the old 30 ms, never a wrong price or window.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import zlib
from typing import TYPE_CHECKING, Any

from flue_tui.config.paths import cache_dir
from flue_tui.core.files import read_own_at

if TYPE_CHECKING:
    from pathlib import Path

INDEX_NAME = "model-map-index"
OLD_NAMES = ("model-map-index.json",)  # version 1's (JSON, the map's SHA-256): removed when one is written
HEAD = b"flue model-map index 2\n"
MAX_INDEX_BYTES = 4 << 20  # ~5,000 entries take ~250 kB; a bigger file is not one flue wrote
TMP_PREFIX = ".model-map-"
TMP_STALE_S = 600.0  # writing an index takes milliseconds; a temporary file this old was abandoned

_WS = re.compile(rb"[ \t\n\r]*")
_decoder = json.JSONDecoder()
Offsets = tuple[int, int, int]  # the key's opening quote, the value's first and past-last byte


class Stale(ValueError):
    """The index does not describe these bytes: parse the map whole instead."""


def _skip(raw: bytes, at: int) -> int:
    match = _WS.match(raw, at)
    return match.end() if match is not None else at


def scan(raw: bytes) -> tuple[dict[str, Any], dict[str, Offsets]]:
    """The map parsed (as json.loads parses it: a repeated key keeps its last value) and where each
    top-level entry is. ValueError if `raw` is not one JSON object."""
    text = raw.decode("utf-8")
    if not text.isascii():  # offsets are bytes; the characters only match them in ASCII
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not an object")
        return data, {}
    entries: dict[str, Any] = {}
    where: dict[str, Offsets] = {}  # the objects only: no other kind of value is a model's entry
    at = _skip(raw, 0)
    if raw[at : at + 1] != b"{":
        raise ValueError("not an object")
    at = _skip(raw, at + 1)
    if raw[at : at + 1] == b"}":
        return entries, where
    while True:
        key_at = at
        key, at = _decoder.raw_decode(text, at)
        if not isinstance(key, str):
            raise ValueError("a key that is not a string")
        at = _skip(raw, at)
        if raw[at : at + 1] != b":":
            raise ValueError("no ':' after a key")
        value_at = _skip(raw, at + 1)
        value, end = _decoder.raw_decode(text, value_at)
        entries[key] = value
        if isinstance(value, dict):
            where[key] = (key_at, value_at, end)
        else:
            where.pop(key, None)
        at = _skip(raw, end)
        if raw[at : at + 1] == b",":
            at = _skip(raw, at + 1)
        elif raw[at : at + 1] == b"}":
            return entries, where
        else:
            raise ValueError("no ',' or '}' after a value")


def _before(raw: bytes, at: int) -> bytes:
    """The byte before `at`, whitespace skipped."""
    at -= 1
    while at >= 0 and raw[at] in b" \t\n\r":
        at -= 1
    return raw[at : at + 1] if at >= 0 else b""


def entry_at(raw: bytes, key: str, offsets: Offsets) -> dict[str, Any]:
    """The entry `key`'s offsets point at in `raw`, checked to be that key's; Stale if not."""
    key_at, value_at, end = offsets
    if not 0 < key_at < value_at < end <= len(raw) or raw[key_at] != ord('"'):
        raise Stale(key)  # (a key at its quote: whitespace before it would widen what is counted below)
    before = _before(raw, key_at)
    after = raw[_skip(raw, end) : _skip(raw, end) + 1]
    head = raw[key_at:value_at].rstrip(b" \t\n\r")
    if before not in (b"{", b",") or after not in (b",", b"}") or not head.endswith(b":"):
        raise Stale(key)
    quoted = head[:-1].rstrip(b" \t\n\r")
    try:
        found = json.loads(quoted)
        value = json.loads(raw[value_at:end])
    except ValueError:
        raise Stale(key) from None
    if found != key or not isinstance(value, dict):
        raise Stale(key)
    # The checks above also pass for an object nested in another entry under the same key (which
    # the index may point at: any process of this user can write it). The key found as a key only
    # here, in the whole map, means there is no such other place (~2 ms, once per model).
    if _key_places(raw, quoted) != 1:
        raise Stale(key)
    return value


def _key_places(raw: bytes, quoted: bytes) -> int:
    """How often `quoted` (a key's bytes, quotes included) is followed by a `:` in `raw`; as a
    string value (a model naming its successor) it is not counted."""
    places, at = 0, raw.find(quoted)
    while at >= 0:
        after = _skip(raw, at + len(quoted))
        places += raw[after : after + 1] == b":"
        at = raw.find(quoted, at + 1)
    return places


def stamp(info: os.stat_result) -> bytes:
    """What ties an index to one map file: a changed or replaced file has another."""
    fields = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
    return json.dumps(fields).encode() + b"\n"


def load(made: bytes) -> Index | None:
    """The stored index of the map file stamped `made`, or None (missing, unreadable, another
    map's, broken)."""
    folder = cache_dir()
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if os.stat(INDEX_NAME, dir_fd=dir_fd, follow_symlinks=False).st_uid != os.geteuid():
            return None  # another user's (a cache directory shared with others): replaced, not read
        data = read_own_at(dir_fd, INDEX_NAME, str(folder / INDEX_NAME), MAX_INDEX_BYTES)
    except OSError:  # absent, a symlink (ELOOP), not a regular file, too large
        return None
    finally:
        os.close(dir_fd)
    head = HEAD + made
    if not data.startswith(head) or not data.endswith(b"\n"):
        return None
    lines_at = data.find(b"\n", len(head))  # the newline ending the CRC's line
    crc = data[len(head) : lines_at]
    if lines_at < 0 or not (crc.isdigit() and len(crc) <= 10) or int(crc) != zlib.crc32(data[lines_at + 1 :]):
        return None
    return Index(data, lines_at)


class Index:
    """The stored index, each line read and checked when its key is asked for: parsing all ~5,000
    each start cost ~4 ms of every process's first request, for the one or two models it asks for.
    A malformed line is Stale, as one pointing at the wrong bytes is."""

    def __init__(self, data: bytes, lines_at: int) -> None:
        self._data, self._at = data, lines_at  # _at: the newline before the first key's line

    def get(self, key: str) -> Offsets | None:
        # A key is written as JSON (ASCII, escaped), so it holds no raw tab or newline: the first
        # line that starts with it and a tab is its own.
        quoted = json.dumps(key).encode()
        at = self._data.find(b"\n" + quoted + b"\t", self._at)
        if at < 0:
            return None
        line = self._data[at + len(quoted) + 2 : self._data.index(b"\n", at + 1)]
        numbers = line.split(b"\t")
        if len(numbers) != 3 or not all(n.isdigit() and len(n) <= 12 for n in numbers):
            raise Stale(key)
        return int(numbers[0]), int(numbers[1]), int(numbers[2])


def _sweep(folder: Path) -> None:
    """Temporary files a killed writer left (kill -9 between writing and renaming): each is a whole
    index, so without this every such kill would leave ~300 kB for good. One younger than
    TMP_STALE_S may be another process's, still being written."""
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as found:
        for entry in found:
            if not entry.name.startswith(TMP_PREFIX):
                continue
            with contextlib.suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > TMP_STALE_S:
                    os.unlink(entry.path)  # a link is removed itself, never what it points at


def save(where: dict[str, Offsets], made: bytes) -> None:
    """Best effort: a directory that cannot be written just means the next run parses the map."""
    folder = cache_dir()
    import tempfile  # only when an index is written: once per litellm version

    body = b"".join(b"%s\t%d\t%d\t%d\n" % (json.dumps(key).encode(), *offsets) for key, offsets in where.items())
    lines = [HEAD, made, b"%d\n" % zlib.crc32(body), body]
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        _sweep(folder)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=folder)  # 0600, created fresh (O_EXCL)
        with os.fdopen(fd, "wb") as fh:
            fh.write(b"".join(lines))
        os.replace(tmp, folder / INDEX_NAME)  # replaces a link planted there, never writes through it
        tmp = None
        for old in OLD_NAMES:
            with contextlib.suppress(OSError):
                os.unlink(folder / old)  # a link is removed itself, never what it points at
    except OSError:
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
