"""Dataclasses' generated methods compiled once (core/classcode.py): a second process reuses them
and its classes behave exactly as `@dataclass` makes them; a changed class compiles afresh; a
broken, hostile or oversized cache file is no cache, a symlink is never followed, and nothing is
written when Python writes no bytecode. Each case runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLASSES = """
from dataclasses import dataclass, field, fields, replace, FrozenInstanceError

@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()

@dataclass
class Bag:
    items: list[int] = field(default_factory=list)
    name: str = "bag"
"""

CHECK = """
p = Point(1, tags=("a",))
assert p == Point(1, 0, ("a",)) and p != Point(2) and hash(p) == hash(Point(1, 0, ("a",)))
assert repr(p) == "Point(x=1, y=0, tags=('a',))", repr(p)
try:
    p.x = 5
except FrozenInstanceError:
    pass
else:
    raise AssertionError("not frozen")
assert replace(p, y=3) == Point(1, 3, ("a",)) and [f.name for f in fields(Point)] == ["x", "y", "tags"]
assert Bag().items == [] and Bag().items is not Bag().items and Bag([1]) == Bag([1], "bag")
assert not hasattr(p, "__dict__")
"""


def _run(path: Path, body: str, *, env: dict[str, str] | None = None, extra: str = "") -> dict:
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from flue_tui.core import classcode\n"
        f"classcode.install(Path({str(path)!r}))\n"
        f"{body}\n{extra}\n"
        "classcode.save()\n"
        "print(json.dumps(classcode.counts))\n"
    )
    run_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run_env.update(env or {})
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=run_env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "pycache" / "dataclass-code.bin"


def test_a_second_process_reuses_the_compiled_methods_and_its_classes_behave_the_same(cache) -> None:
    first = _run(cache, CLASSES + CHECK)
    assert first["misses"] > 0 and cache.is_file()
    second = _run(cache, CLASSES + CHECK)
    assert second["misses"] == 0 and second["hits"] == first["misses"]
    assert cache.stat().st_mode & 0o077 == 0  # the user's own, like the rest of flue's files


def test_a_changed_class_is_compiled_afresh(cache) -> None:
    _run(cache, CLASSES + CHECK)
    changed = CLASSES.replace("    y: int = 0\n", "    y: int = 0\n    z: int = 9\n")
    counts = _run(cache, changed, extra="assert Point(1).z == 9 and 'z=9' in repr(Point(1))")
    assert counts["misses"] > 0


@pytest.mark.parametrize(
    "content",
    ["empty", "garbage", "wrong magic", "truncated", "not two lists", "lists of two lengths", "values not code"],
)
def test_a_broken_cache_file_is_no_cache_and_is_rewritten(cache, content) -> None:
    import importlib.util
    import marshal

    magic = importlib.util.MAGIC_NUMBER
    good = magic + marshal.dumps([["def f(): pass"], [compile("pass", "<string>", "exec")]])
    data = {
        "empty": b"",
        "garbage": magic + os.urandom(4096),
        "wrong magic": b"\x00\x00\r\n" + good[4:],
        "truncated": good[: len(good) // 2],
        "not two lists": magic + marshal.dumps({"def f(): pass": compile("pass", "<string>", "exec")}),
        "lists of two lengths": magic + marshal.dumps([["a", "b"], [compile("pass", "<string>", "exec")]]),
        "values not code": magic + marshal.dumps([["def __create_fn__(): pass"], ["print('owned')"]]),
    }[content]
    cache.parent.mkdir(parents=True)
    cache.write_bytes(data)
    counts = _run(cache, CLASSES + CHECK)
    assert counts["hits"] == 0 and counts["misses"] > 0
    assert _run(cache, CLASSES + CHECK)["misses"] == 0  # the next process has a good cache


def test_a_symlink_at_the_cache_is_never_followed(cache, tmp_path) -> None:
    target = tmp_path / "elsewhere.bin"
    _run(target, CLASSES)  # a valid cache, where the link points
    before = target.read_bytes()
    cache.parent.mkdir(parents=True)
    cache.symlink_to(target)
    counts = _run(cache, CLASSES + CHECK)
    assert counts["hits"] == 0  # not read through the link
    assert target.read_bytes() == before  # nor written through it
    assert cache.is_file() and not cache.is_symlink()  # replaced by a file of its own


def test_a_fifo_or_a_directory_at_the_cache_is_no_cache(cache) -> None:
    cache.parent.mkdir(parents=True)
    os.mkfifo(cache)
    assert _run(cache, CLASSES + CHECK)["hits"] == 0  # opened without blocking, not a regular file
    cache.unlink()
    cache.mkdir()
    assert _run(cache, CLASSES + CHECK)["hits"] == 0  # and saving over a directory fails quietly


def test_an_oversized_cache_file_is_not_read(cache) -> None:
    import importlib.util

    from flue_tui.core import classcode

    cache.parent.mkdir(parents=True)
    with cache.open("wb") as f:
        f.write(importlib.util.MAGIC_NUMBER)
        f.truncate(classcode.MAX_BYTES + 1)
    assert _run(cache, CLASSES + CHECK)["hits"] == 0


def test_nothing_is_written_when_python_writes_no_bytecode(cache) -> None:
    _run(cache, CLASSES + CHECK, env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert not cache.exists()


def test_an_unwritable_directory_leaves_the_run_as_it_was(cache) -> None:
    if os.geteuid() == 0:
        blocker = cache.parent  # root writes anywhere: make the directory a file instead
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_text("a file where the directory would be")
    else:
        cache.parent.mkdir(parents=True)
        cache.parent.chmod(0o500)
    counts = _run(cache, CLASSES + CHECK)
    assert counts["misses"] > 0


def test_the_flue_entry_installs_it_once_the_flags_are_read() -> None:
    # After argv is parsed (--help and --version import only the CLI), before anything else.
    script = (
        "import dataclasses\n"
        "from flue_tui.cli.flue import main\n"
        "from flue_tui.core import classcode\n"
        "main(['--plain', '--model', 'nobody/none', '--cwd', '/nonexistent-dir-for-flue'])\n"
        "print(getattr(dataclasses, 'exec', None) is classcode._exec)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "True"
