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

UNUSUAL = """
import weakref
from dataclasses import dataclass, field, InitVar, KW_ONLY, fields, replace, astuple
from typing import ClassVar

@dataclass(kw_only=True)
class K:
    a: int
    b: str = "b"

@dataclass
class M:
    x: int
    _: KW_ONLY
    y: int = 2
    scale: InitVar[int] = 1
    total: int = field(init=False, default=0)
    count: ClassVar[int] = 0
    def __post_init__(self, scale):
        self.total = (self.x + self.y) * scale

@dataclass(slots=True, weakref_slot=True, order=True, unsafe_hash=True)
class S:
    a: int
    b: int = 0

@dataclass(eq=False, repr=False, match_args=False)
class Bare:
    v: int = 1

@dataclass
class Base:
    a: int = 0
@dataclass(frozen=False)
class Child(Base):
    b: list = field(default_factory=lambda: [1])
    café: str = "é\\u00ff\\U0001f600"

def make():
    @dataclass
    class Inner:
        q: int = 3
    return Inner
"""
CHECKU = """
assert K(a=1) == K(a=1, b="b") and repr(K(a=1)) == "K(a=1, b='b')"
try:
    K(1)
except TypeError:
    pass
else:
    raise AssertionError
m = M(1, y=3, scale=2)
assert m.total == 8 and [f.name for f in fields(M)] == ["x", "y", "total"] and M.count == 0
assert S(1) < S(2) and hash(S(1, 2)) == hash(S(1, 2)) and weakref.ref(S(1)) is not None and not hasattr(S(1), "__dict__")
assert S.__match_args__ == ("a", "b") and not hasattr(Bare, "__match_args__") and Bare() != Bare()
c = Child(5)
assert c == Child(5) and c.b == [1] and c.café == "é\\u00ff\\U0001f600" and repr(c).startswith("Child(a=5, b=[1], café=")
assert make()().q == 3 and make() is not make()
match S(1, 2):
    case S(a, b):
        assert (a, b) == (1, 2)
"""


def _run(
    path: Path | None,
    body: str,
    *,
    env: dict[str, str] | None = None,
    extra: str = "",
    pre: str = "",
    python: str = sys.executable,
    cwd: Path | None = None,
    flags: tuple[str, ...] = (),
) -> dict:
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from flue_tui.core import classcode\n"
        f"{pre}\n"
        f"classcode.install({'None' if path is None else f'Path({str(path)!r})'})\n"
        f"{body}\n{extra}\n"
        "classcode.save()\n"
        "print(json.dumps(classcode.counts))\n"
    )
    run_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run_env.update(env or {})
    out = subprocess.run(
        [python, *flags, "-c", script], capture_output=True, text=True, timeout=120, env=run_env, cwd=cwd
    )
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


def test_every_kind_of_dataclass_behaves_the_same_from_the_cache(cache) -> None:
    """kw_only, KW_ONLY, InitVar, __post_init__, ClassVar, slots with a weakref slot, order,
    unsafe_hash, match_args off, inheritance, non-ASCII names and defaults, a class in a function."""
    first = _run(cache, UNUSUAL + CHECKU)
    second = _run(cache, UNUSUAL + CHECKU)
    assert first["misses"] > 0 and second["misses"] == 0 and second["hits"] == first["hits"] + first["misses"]


def test_processes_saving_at_once_leave_one_whole_file_and_no_temporary_ones(cache) -> None:
    import concurrent.futures

    bodies = [
        f"from dataclasses import make_dataclass\nfor i in range(40):\n    make_dataclass(f'P{n}_{{i}}', ['a{n}'])\n"
        for n in range(6)
    ]
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda body: _run(cache, body), bodies))
    assert [p.name for p in cache.parent.iterdir()] == [cache.name]
    counts = _run(cache, "\n".join(bodies))
    assert counts["hits"] >= 40  # one writer's whole table, whichever was last


def test_a_changed_class_is_compiled_afresh(cache) -> None:
    _run(cache, CLASSES + CHECK)
    changed = CLASSES.replace("    y: int = 0\n", "    y: int = 0\n    z: int = 9\n")
    counts = _run(cache, changed, extra="assert Point(1).z == 9 and 'z=9' in repr(Point(1))")
    assert counts["misses"] > 0


@pytest.mark.parametrize(
    "content",
    [
        "empty",
        "garbage",
        "wrong magic",
        "another install's stamp",
        "truncated",
        "not two lists",
        "lists of two lengths",
        "values not code",
    ],
)
def test_a_broken_cache_file_is_no_cache_and_is_rewritten(cache, content) -> None:
    import importlib.util
    import marshal

    from flue_tui.core import classcode

    stamp = classcode._stamp()  # this install's, as the process run below computes it
    assert stamp is not None
    magic = importlib.util.MAGIC_NUMBER + stamp
    good = magic + marshal.dumps([["def f(): pass"], [marshal.dumps(compile("pass", "<string>", "exec"))]])
    data = {
        "empty": b"",
        "garbage": magic + os.urandom(4096),
        "wrong magic": b"\x00\x00\r\n" + good[4:],
        "another install's stamp": good[:4] + bytes(len(stamp)) + good[len(magic) :],
        "truncated": good[: len(good) // 2],
        "not two lists": magic + marshal.dumps({"def f(): pass": compile("pass", "<string>", "exec")}),
        "lists of two lengths": magic
        + marshal.dumps([["a", "b"], [marshal.dumps(compile("pass", "<string>", "exec"))]]),
        "values not code": magic + marshal.dumps([["def __create_fn__(): pass"], ["print('owned')"]]),
    }[content]
    cache.parent.mkdir(parents=True)
    cache.write_bytes(data)
    counts = _run(cache, CLASSES + CHECK)
    assert counts["hits"] == 0 and counts["misses"] > 0
    assert _run(cache, CLASSES + CHECK)["misses"] == 0  # the next process has a good cache


@pytest.mark.parametrize("blob", ["a string", "garbage", "code objects, not their bytes", "a count past memory"])
def test_an_entry_whose_code_is_broken_is_compiled_afresh_when_it_is_used(cache, blob) -> None:
    """Each entry's code is read when its text is first looked up: a class whose entry holds
    anything but a code object's bytes is compiled as if it were not in the file, and works."""
    import marshal

    _run(cache, CLASSES)
    import importlib.util

    from flue_tui.core import classcode

    raw = cache.read_bytes()
    magic = importlib.util.MAGIC_NUMBER + classcode._stamp()
    texts, blobs = marshal.loads(raw[len(magic) :])
    bad = {
        "a string": lambda b: marshal.dumps("print('owned')"),
        "garbage": lambda b: b[: len(b) // 2] + b"\xff" * 16,
        "code objects, not their bytes": lambda b: marshal.loads(b),
        "a count past memory": lambda b: b"(\xff\xff\xff\x7f",  # a tuple of 2**31 items: 16 GB to unmarshal
    }[blob]
    cache.write_bytes(magic + marshal.dumps([texts, [bad(b) for b in blobs]]))
    # Bounded, so the tuple's allocation fails at once (unbounded, marshal may take a minute to).
    bound = "import resource; resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))"
    counts = _run(cache, CLASSES + CHECK, pre=bound if blob == "a count past memory" else "")
    assert counts["hits"] == 0 and counts["misses"] == len(texts)
    assert _run(cache, CLASSES + CHECK)["misses"] == 0  # written again, whole


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


def test_an_interpreter_that_keeps_no_bytecode_starts_flue_without_the_cache() -> None:
    script = (
        "import sys\n"
        "sys.implementation.cache_tag = None\n"  # as one without bytecode caching reports it
        "from flue_tui.cli.flue import main\n"
        "from flue_tui.core import classcode\n"
        "try:\n    main(['--plain', '--model', 'nobody/none', '--cwd', '/nonexistent-dir-for-flue'])\n"
        "except SystemExit:\n    pass\n"
        "from dataclasses import dataclass\n"
        "@dataclass\nclass P:\n    x: int = 1\n"
        "assert P() == P(1)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


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


def test_a_full_cache_keeps_what_this_run_used_and_drops_what_no_one_defines_any_more(cache) -> None:
    stale = "from dataclasses import make_dataclass\nfor i in range(30):\n    make_dataclass(f'Old{i}', [f'old{i}'])\n"
    small = "classcode.MAX_ENTRIES = 20"
    _run(cache, stale, pre=small)  # a full file of classes a later release no longer has
    assert _run(cache, CLASSES + CHECK, pre=small)["misses"] > 0
    assert _run(cache, CLASSES + CHECK, pre=small)["misses"] == 0  # kept, the stale ones dropped


def test_classes_that_outgrow_the_files_bound_leave_it_with_the_first_used(cache) -> None:
    many = "from dataclasses import make_dataclass\nfor i in range(300):\n    make_dataclass(f'Big{i}', [f'b{i}_{j}' for j in range(20)])\n"
    small = "classcode.MAX_BYTES = 200_000"
    _run(cache, CLASSES + CHECK + many, pre=small)
    assert 0 < cache.stat().st_size <= 200_000
    assert _run(cache, CLASSES + CHECK, pre=small)["misses"] == 0


def _clone(root: Path, mtime: int) -> Path:
    """flue's package as a checkout writes it: the same text, files of their own, mtime of the moment."""
    for name in ("__init__.py", "core/__init__.py", "core/classcode.py"):
        source = Path(__file__).parent.parent / "flue_tui" / name
        target = root / "flue_tui" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        os.utime(target, ns=(mtime, mtime))
    return root / "flue_tui" / "core" / "__pycache__"


def test_a_cache_file_that_came_with_a_cloned_repository_is_not_read(tmp_path) -> None:
    """A repository may commit __pycache__: a default .pyc is checked against its source's mtime
    and size, and so is this file (against classcode.py's), even when the checkout gives it the
    owner and mode of one flue wrote."""
    one, other = tmp_path / "one", tmp_path / "other"
    cached = _clone(one, 1_700_000_000_000_000_000)
    _run(
        None,
        CLASSES,
        env={"PYTHONPATH": str(one)},
        cwd=one,
        extra=f"assert classcode.__file__.startswith({str(one)!r}), classcode.__file__",
    )
    [planted] = cached.glob("dataclass-code.*.bin")  # the cache beside that checkout's bytecode
    target = _clone(other, 1_700_000_999_000_000_000)
    target.mkdir(parents=True)
    (target / planted.name).write_bytes(planted.read_bytes())
    (target / planted.name).chmod(0o600)
    counts = _run(None, CLASSES + CHECK, env={"PYTHONPATH": str(other)}, cwd=other)
    assert counts["hits"] == 0 and counts["misses"] > 0
    assert _run(None, CLASSES + CHECK, env={"PYTHONPATH": str(other)}, cwd=other)["misses"] == 0  # its own


def test_runs_with_and_without_optimisation_keep_a_cache_each(tmp_path) -> None:
    root = tmp_path / "checkout"
    _clone(root, 1_700_000_000_000_000_000)
    env = {"PYTHONPATH": str(root)}
    _run(None, CLASSES, env=env, cwd=root)
    assert _run(None, CLASSES, env=env, cwd=root, flags=("-O",))["misses"] > 0
    assert _run(None, CLASSES, env=env, cwd=root)["misses"] == 0  # not thrown away by the -O run
    assert _run(None, CLASSES, env=env, cwd=root, flags=("-O",))["misses"] == 0


def test_a_shared_pycache_prefix_holds_the_file_and_one_another_user_planted_there_is_not_read(tmp_path) -> None:
    """PYTHONPYCACHEPREFIX pointing at a world-writable place: the file goes there, and one that
    another user put there (theirs, though valid in every other way) is no cache."""
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user takes root")
    root, prefix = tmp_path / "checkout", tmp_path / "shared"
    _clone(root, 1_700_000_000_000_000_000)
    prefix.mkdir(mode=0o777)
    prefix.chmod(0o1777)
    env = {"PYTHONPATH": str(root), "PYTHONPYCACHEPREFIX": str(prefix)}
    _run(None, CLASSES, env=env, cwd=root)
    [planted] = prefix.rglob("dataclass-code.*.bin")
    assert not (root / "flue_tui" / "core" / "__pycache__").exists() or not any(
        (root / "flue_tui" / "core" / "__pycache__").glob("dataclass-code.*")
    )
    assert _run(None, CLASSES + CHECK, env=env, cwd=root)["misses"] == 0
    os.chown(planted, 65534, 65534)
    assert _run(None, CLASSES + CHECK, env=env, cwd=root)["hits"] == 0


def test_a_cache_file_others_may_write_is_not_read(cache) -> None:
    _run(cache, CLASSES)
    cache.chmod(0o620)
    assert _run(cache, CLASSES + CHECK)["hits"] == 0


def test_a_killed_saves_temporary_file_is_removed_by_the_next_save_and_a_fresh_one_left(cache) -> None:
    cache.parent.mkdir(parents=True)
    old, fresh = cache.parent / ".dataclass-code.killed", cache.parent / ".dataclass-code.underway"
    old.write_bytes(b"half a save")
    fresh.write_bytes(b"another process, saving now")
    an_hour_ago = int(__import__("time").time()) - 3600
    os.utime(old, (an_hour_ago, an_hour_ago))
    _run(cache, CLASSES + CHECK)
    assert not old.exists() and fresh.exists() and cache.is_file()


def test_other_calls_of_exec_are_the_builtins_as_given() -> None:
    from flue_tui.core import classcode

    scope: dict = {}
    if sys.version_info >= (3, 13):
        classcode._exec("x = 1", globals=scope)  # keyword globals: 3.13's exec takes them
    else:
        classcode._exec("x = 1", scope, closure=None)
    classcode._exec(compile("y = 2", "<string>", "exec"), scope)
    assert scope["x"] == 1 and scope["y"] == 2


@pytest.mark.parametrize("version", ["3.11.7", "3.12.1", "3.13.0"])
def test_a_cache_written_by_one_python_is_never_used_by_another(cache, version) -> None:
    minor = version.rsplit(".", 1)[0]
    other = Path(f"/root/.pyenv/versions/{version}/bin/python{minor}")
    if not other.exists() or minor == f"{sys.version_info[0]}.{sys.version_info[1]}":
        pytest.skip(f"no other Python {minor} here")
    repo = {"PYTHONPATH": str(Path(__file__).parent.parent)}
    _run(cache, CLASSES + CHECK)
    assert _run(cache, CLASSES + CHECK, python=str(other), env=repo)["hits"] == 0
    assert _run(cache, CLASSES + CHECK, python=str(other), env=repo)["misses"] == 0  # now its own
    assert _run(cache, CLASSES + CHECK)["hits"] == 0
