"""Dataclasses' generated methods, compiled once and kept beside the interpreter's own bytecode.

`@dataclass` writes each class's `__init__`, `__repr__`, `__eq__` (and a frozen one's `__setattr__`,
`__delattr__`, `__hash__`) as source text and compiles it, every time the class is defined: ~1.5 ms
a class here, and a prompt given at launch defines ~200 (flue's, Textual's, httpcore's) before its
first token, ~0.25 s of its CPU; ~70 before the app's first frame. Python keeps a module's compiled
code in `__pycache__`; this does the same for the text `@dataclass` generates. `install()` (the `flue`
entry's first step) gives the dataclasses module an `exec` that looks the text up first; `save()`,
at exit, writes what was compiled new.

The entry is keyed by the whole text, so a changed class compiles afresh; the file is the
interpreter's (its magic number heads it) and lives where Python writes flue's bytecode, written
the same way: only when bytecode is written at all (PYTHONDONTWRITEBYTECODE, `-B`), atomically,
never through a symlink. Whoever can write that directory can already write flue's .pyc files
(an unchecked-hash .pyc is loaded without looking at its source): no one gains anything by this
file they did not have. It is still held to more than a .pyc is: it must be the user's own, written
by no one else (no group or world write bit), and stamped with this install's classcode.py (its
mtime and size, as a .pyc is with its source's, and the -O level), so a file that came with a
cloned repository, a copied tree or another install is not read. Anything else is no cache.

The file keeps at most MAX_ENTRIES texts and MAX_BYTES, those this run used first: classes a
library no longer defines (an upgrade changes their text) fall off the end instead of filling it
for good. Each text's code is kept as marshal bytes of its own, read into a code object when that
text is first looked up: a start defines a few hundred of the file's classes, and reading every
entry's code (a cache that also holds the tests' or litellm's classes: thousands) cost ~5-25 ms
before the first frame.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import stat
import sys
import threading
from pathlib import Path
from typing import Any

MAX_BYTES = 8 << 20  # the file: ~0.3 MB for every class flue defines; past this it is not ours
MAX_ENTRIES = 4000  # compiled texts kept: flue's, its libraries', a few hundred each
STALE_S = 600.0  # a temporary file this old is a killed save's, not one under way
_TMP_PREFIX = ".dataclass-code."

_lock = threading.Lock()
_codes: dict[str, Any] = {}  # the file's entries (code as marshal bytes until first used) and this run's
_used: dict[str, Any] = {}  # this run's, in the order first used: what the file keeps first
_new = 0  # entries compiled since the file was read
_path: Path | None = None
counts = {"hits": 0, "misses": 0}


def cache_path() -> Path:
    """Where Python keeps this module's bytecode (PYTHONPYCACHEPREFIX honoured), this file's name;
    one of its own for each -O level, as a .pyc has (else runs with and without -O take turns
    throwing the other's away)."""
    compiled = Path(importlib.util.cache_from_source(__file__))
    opt = f".opt-{sys.flags.optimize}" if sys.flags.optimize else ""
    return compiled.with_name(f"dataclass-code.{sys.implementation.cache_tag}{opt}.bin")


def _exec(source: Any, *args: Any, **kw: Any) -> None:
    """`exec` as the dataclasses module calls it, with its text compiled once. Any other call
    (a code object, globals by keyword, a closure) is the builtin's, as it was given."""
    if not isinstance(source, str) or not args or args[0] is None or kw or len(args) > 2:
        return builtins.exec(source, *args, **kw)
    code = _codes.get(source)
    if type(code) is bytes:
        code = _code(code)
        if code is not None:
            _codes[source] = code
    if code is None:
        counts["misses"] += 1
        # As exec(str) from dataclasses.py compiles it: no future flags of ours, its "<string>" name.
        code = compile(source, "<string>", "exec", dont_inherit=True)
        global _new
        with _lock:
            if len(_used) < MAX_ENTRIES:
                _codes[source] = _used[source] = code
                _new += 1
    else:
        counts["hits"] += 1
        if source not in _used and len(_used) < MAX_ENTRIES:
            _used[source] = code
    builtins.exec(code, *args)


def _code(blob: bytes) -> Any:
    """A file entry's code object, or None (not one: compiled afresh, as a text not in the file)."""
    try:
        code = marshal.loads(blob)
    except (EOFError, ValueError, TypeError, MemoryError):  # marshal trusts a count it reads
        return None
    return code if type(code) is type(_code.__code__) else None


def install(path: Path | None = None) -> None:
    """Read the cache (once) and let `@dataclass` use it. Idempotent; uninstall() undoes it."""
    global _path
    with _lock:
        if getattr(dataclasses, "exec", None) is _exec:
            return
        try:
            _path = path or cache_path()
        except (NotImplementedError, ValueError):  # an interpreter that keeps no bytecode (no cache_tag)
            return
        _codes.update(_read(_path))
        dataclasses.exec = _exec  # pyright: ignore[reportAttributeAccessIssue]  # found before the builtin
        atexit.register(save)  # exit_now runs the atexit handlers too


def uninstall() -> None:
    global _new, _path
    with _lock:
        if getattr(dataclasses, "exec", None) is _exec:
            del dataclasses.exec  # pyright: ignore[reportAttributeAccessIssue]
        _codes.clear()
        _used.clear()
        _new, _path = 0, None


def _uid() -> int:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else 0  # Windows: no owners to compare (st_uid is 0)


def _stamp() -> bytes | None:
    """What ties the file to this install: classcode.py's mtime and size, and the -O level."""
    try:
        info = os.stat(__file__)
    except OSError:
        return None
    mtime, size = info.st_mtime_ns & (1 << 64) - 1, info.st_size & (1 << 64) - 1
    return mtime.to_bytes(8, "little") + size.to_bytes(8, "little") + bytes([sys.flags.optimize & 0xFF])


def _read(path: Path) -> dict[str, Any]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return {}
        if info.st_uid != _uid() or info.st_mode & 0o022:  # another's, or writable by others
            return {}
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    stamp = _stamp()
    head = importlib.util.MAGIC_NUMBER + (stamp or b"")
    if stamp is None or len(raw) > MAX_BYTES or not raw.startswith(head):
        return {}
    try:
        texts, blobs = marshal.loads(memoryview(raw)[len(head) :])
    except (EOFError, ValueError, TypeError, MemoryError):  # marshal trusts a count it reads
        return {}
    if not isinstance(texts, list) or not isinstance(blobs, list) or len(texts) != len(blobs):
        return {}
    return {k: v for k, v in zip(texts, blobs, strict=True) if type(k) is str and type(v) is bytes}


def save() -> None:
    """Write the cache if anything was compiled new since it was read. Never raises; a no-op when
    Python writes no bytecode, or when flue's bytecode directory cannot be written."""
    global _new
    with _lock:
        path = _path
        if path is None or _new == 0 or sys.dont_write_bytecode:
            return
        table, _new = dict(_used), 0
        for source, code in _codes.items():  # then what earlier runs kept, oldest use last
            if len(table) >= MAX_ENTRIES:
                break
            table.setdefault(source, code)
    stamp = _stamp()
    if stamp is None:
        return
    try:
        texts = list(table)
        blobs = [code if type(code) is bytes else marshal.dumps(code) for code in table.values()]
    except ValueError:
        return
    while True:
        # Two lists, not the dict: marshal reads a dict of ~1,000 long str keys ~3× slower.
        data = importlib.util.MAGIC_NUMBER + stamp + marshal.dumps([texts, blobs])
        if len(data) <= MAX_BYTES:
            break
        if len(texts) <= 1:
            return
        del texts[len(texts) // 2 :], blobs[len(blobs) // 2 :]  # past the bound: the first-used half
    import tempfile  # here: its own imports (random, shutil) are not start-up's

    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_TMP_PREFIX)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)  # a symlink there is replaced, never written through
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            return
        _sweep(path.parent)


def _sweep(folder: Path) -> None:
    """Remove the temporary files of saves killed half-way (kill -9, power loss): each would
    otherwise stay in flue's bytecode directory for good. One younger than STALE_S may be another
    process's save under way, and is left alone."""
    import time

    cutoff = time.time() - STALE_S
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.startswith(_TMP_PREFIX):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and info.st_uid == _uid() and info.st_mtime < cutoff:
                    os.unlink(entry.path)
