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
never through a symlink. Whoever can write that directory can already write flue's .pyc files:
no one gains anything by this file they did not have. Anything unreadable is no cache.
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

_lock = threading.Lock()
_codes: dict[str, Any] = {}
_new = 0  # entries compiled since the file was read
_path: Path | None = None
counts = {"hits": 0, "misses": 0}


def cache_path() -> Path:
    """Where Python keeps this module's bytecode (PYTHONPYCACHEPREFIX honoured), this file's name."""
    compiled = Path(importlib.util.cache_from_source(__file__))
    return compiled.with_name(f"dataclass-code.{sys.implementation.cache_tag}.bin")


def _exec(source: Any, globals: Any = None, locals: Any = None, /, **kw: Any) -> None:
    """`exec` as the dataclasses module calls it, with its text compiled once."""
    if not isinstance(source, str) or globals is None or kw:
        return builtins.exec(source, globals, locals, **kw)
    code = _codes.get(source)
    if code is None:
        counts["misses"] += 1
        # As exec(str) from dataclasses.py compiles it: no future flags of ours, its "<string>" name.
        code = compile(source, "<string>", "exec", dont_inherit=True)
        global _new
        with _lock:
            if len(_codes) < MAX_ENTRIES:
                _codes[source] = code
                _new += 1
    else:
        counts["hits"] += 1
    builtins.exec(code, globals, locals)


def install(path: Path | None = None) -> None:
    """Read the cache (once) and let `@dataclass` use it. Idempotent; uninstall() undoes it."""
    global _path
    with _lock:
        if getattr(dataclasses, "exec", None) is _exec:
            return
        _path = path or cache_path()
        _codes.update(_read(_path))
        dataclasses.exec = _exec  # pyright: ignore[reportAttributeAccessIssue]  # found before the builtin
        atexit.register(save)  # exit_now runs the atexit handlers too


def uninstall() -> None:
    global _new, _path
    with _lock:
        if getattr(dataclasses, "exec", None) is _exec:
            del dataclasses.exec  # pyright: ignore[reportAttributeAccessIssue]
        _codes.clear()
        _new, _path = 0, None


def _uid() -> int:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else 0  # Windows: no owners to compare (st_uid is 0)


def _read(path: Path) -> dict[str, Any]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES or info.st_uid != _uid():
            return {}
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    magic = importlib.util.MAGIC_NUMBER
    if len(raw) > MAX_BYTES or not raw.startswith(magic):
        return {}
    try:
        texts, codes = marshal.loads(raw[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(texts, list) or not isinstance(codes, list) or len(texts) != len(codes):
        return {}
    code_type = type(_read.__code__)
    return {k: v for k, v in zip(texts, codes, strict=True) if isinstance(k, str) and isinstance(v, code_type)}


def save() -> None:
    """Write the cache if anything was compiled new since it was read. Never raises; a no-op when
    Python writes no bytecode, or when flue's bytecode directory cannot be written."""
    global _new
    with _lock:
        path = _path
        if path is None or _new == 0 or sys.dont_write_bytecode:
            return
        table, _new = dict(_codes), 0
    try:
        # Two lists, not the dict: marshal reads a dict of ~1,000 long str keys ~3× slower.
        data = importlib.util.MAGIC_NUMBER + marshal.dumps([list(table), list(table.values())])
    except ValueError:
        return
    if len(data) > MAX_BYTES:
        return
    import tempfile  # here: its own imports (random, shutil) are not start-up's

    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".dataclass-code.")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)  # a symlink there is replaced, never written through
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
