"""Where each model's entry sits in litellm's model map, kept between runs (modelmap.py reads it).

Parsing the whole map (~3.5 MB of JSON) cost ~30 ms of CPU in every process, before a first
request could be sized. The index is a small JSON file in flue's cache directory: for each
top-level key of the map, the byte offsets of the key and of its value. A process reads the map's
bytes (~3 ms), checks they are the ones indexed (size and SHA-256), and decodes only the entries it
asks for (~4 µs each).

The index only says where to look; every value still comes from the map's own bytes, and each is
checked where it is found: the key there is the one asked for, between a `{`/`,` and a `:`, found
nowhere else in the map (so not an object nested in another entry under the same name), and the
value is one JSON object ending before a `,`/`}`. An index that is missing, corrupt, written
for another map (another litellm), another user's, a symlink, too large, or unreadable (its
directory too) is not used: the map is parsed whole, as before, and a fresh index written beside
it when that works. So a broken index costs the old 30 ms, never a wrong price or window.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from typing import TYPE_CHECKING, Any

from flue_tui.config.paths import cache_dir
from flue_tui.core.files import read_own_at

if TYPE_CHECKING:
    from pathlib import Path

INDEX_NAME = "model-map-index.json"
VERSION = 1
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
    if not 0 < key_at < value_at < end <= len(raw):
        raise Stale(key)
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


def fingerprint(raw: bytes) -> dict[str, Any]:
    return {"size": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}


def load(raw: bytes) -> Index | None:
    """The stored index of these map bytes, or None (missing, unreadable, another map's, broken)."""
    folder = cache_dir()
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if os.stat(INDEX_NAME, dir_fd=dir_fd, follow_symlinks=False).st_uid != os.geteuid():
            return None  # another user's (a cache directory shared with others): replaced, not read
        data = json.loads(read_own_at(dir_fd, INDEX_NAME, str(folder / INDEX_NAME), MAX_INDEX_BYTES))
    except (OSError, ValueError):  # absent, a symlink (ELOOP), not a regular file, too large, not JSON
        return None
    finally:
        os.close(dir_fd)
    if not isinstance(data, dict) or data.get("version") != VERSION or data.get("map") != fingerprint(raw):
        return None
    keys, flat = data.get("keys"), data.get("offsets")
    if not (isinstance(keys, list) and isinstance(flat, list) and len(flat) == 3 * len(keys)):
        return None
    return Index(keys, flat)


class Index:
    """The stored index, each entry's offsets checked when that entry is asked for: checking all
    ~5,000 and making a dict of them cost ~4 ms of every process's first request, for the one or
    two models it asks for. A malformed entry is Stale, as one pointing at the wrong bytes is."""

    def __init__(self, keys: list[Any], flat: list[Any]) -> None:
        self._keys, self._flat = keys, flat

    def get(self, key: str) -> Offsets | None:
        try:
            i = self._keys.index(key)
        except ValueError:
            return None
        offsets = self._flat[3 * i : 3 * i + 3]
        if not all(type(n) is int for n in offsets):
            raise Stale(key)
        return offsets[0], offsets[1], offsets[2]


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


def save(raw: bytes, where: dict[str, Offsets]) -> None:
    """Best effort: a directory that cannot be written just means the next run parses the map."""
    folder = cache_dir()
    import tempfile  # only when an index is written: once per litellm version

    flat = [n for offsets in where.values() for n in offsets]
    body = json.dumps(
        {"version": VERSION, "map": fingerprint(raw), "keys": list(where), "offsets": flat}, separators=(",", ":")
    )
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        _sweep(folder)
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=folder)  # 0600, created fresh (O_EXCL)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
        os.replace(tmp, folder / INDEX_NAME)  # replaces a link planted there, never writes through it
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
