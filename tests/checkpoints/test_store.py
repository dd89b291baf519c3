"""File checkpoints on real files: exact bytes back, ignored and uncaptured files untouched, and a
hostile workspace (attributes, config, planted symlinks) that cannot change what is stored or
restored."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from flue_tui.checkpoints import FileCheckpoints, GitMissing

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def tree_hashes(root: Path) -> dict[str, str]:
    """Every file and symlink under root except .git, with a hash of its bytes (or link target)."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            else:
                mode = "x" if os.access(path, os.X_OK) else "-"
                out[rel] = mode + hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "notes.txt").write_bytes(b"line one\r\nline two\r\n\xff\xfe binary-ish\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_text("X = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "app.log").write_text("ignored log\n")
    return root


@pytest.fixture
def cps(ws: Path, tmp_path: Path) -> FileCheckpoints:
    return FileCheckpoints(ws, tmp_path / "home")


def sh(ws: Path, script: str) -> None:
    subprocess.run(["bash", "-c", script], cwd=ws, check=True)


def test_rewind_to_each_turn_restores_the_tree_byte_for_byte(ws: Path, cps: FileCheckpoints) -> None:
    states: list[tuple[str, dict[str, str]]] = []

    def checkpoint(n: int) -> None:
        snap = cps.snapshot(f"sess/{n}")
        states.append((snap.commit, tree_hashes(ws)))

    checkpoint(1)
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b + 0\n")  # edit
    checkpoint(2)
    (ws / "pkg" / "mod.py").write_text("X = 2\nY = 3\n")  # write
    (ws / "pkg" / "new.py").write_text("NEW = True\n")
    checkpoint(3)
    sh(
        ws,
        "sed -i 's/one/ONE/' notes.txt && rm run.sh && mv pkg/mod.py pkg/renamed.py && "
        "mkdir -p deep/er && printf 'made by bash' > deep/er/file.bin && ln -s calc.py link.py",
    )
    checkpoint(4)
    (ws / "app.log").write_text("the log changed after the checkpoints\n")
    log_now = (ws / "app.log").read_bytes()

    for commit, expected in reversed(states):
        cps.restore(commit)
        got = tree_hashes(ws)
        got.pop("app.log")
        want = dict(expected)
        want.pop("app.log")
        assert got == want
        assert (ws / "app.log").read_bytes() == log_now  # ignored by git: never touched
    assert not (ws / "deep").exists()  # directories the removals emptied are gone too


def test_restore_is_itself_undoable(ws: Path, cps: FileCheckpoints) -> None:
    first = cps.snapshot("s/1")
    (ws / "calc.py").write_text("changed\n")
    after = tree_hashes(ws)
    restored = cps.restore(first.commit)
    assert restored.written == ("calc.py",)
    cps.restore(restored.before.commit)
    assert tree_hashes(ws) == after


def test_unchanged_tree_reuses_the_checkpoint_and_diff_names_changes(ws: Path, cps: FileCheckpoints) -> None:
    a = cps.snapshot("s/1")
    b = cps.snapshot("s/2")
    assert b.commit == a.commit and b.changed == 0
    (ws / "calc.py").write_text("x\n")
    (ws / "added.txt").write_text("a\n")
    (ws / "notes.txt").unlink()
    c = cps.snapshot("s/3")
    assert c.changed == 3
    changes = {(ch.status, ch.path) for ch in cps.diff(a.commit, c.commit)}
    assert changes == {("modified", "calc.py"), ("added", "added.txt"), ("deleted", "notes.txt")}
    assert "+x" in cps.patch(a.commit, c.commit)


def test_hostile_attributes_and_config_change_nothing(ws: Path, cps: FileCheckpoints, tmp_path: Path) -> None:
    """A repository's .gitattributes (eol conversion, a clean filter) and .git/config (fsmonitor,
    filter drivers) are not ours to run: bytes are stored as they are, no program is started."""
    marker = tmp_path / "pwned"
    (ws / ".gitattributes").write_text("* text eol=crlf filter=evil\n")
    with open(ws / ".git" / "config", "a") as fh:
        fh.write(
            f'[core]\n\tfsmonitor = "touch {marker}; false"\n'
            f'[filter "evil"]\n\tclean = "touch {marker}; cat"\n\tsmudge = "touch {marker}; cat"\n'
        )
    before = tree_hashes(ws)
    first = cps.snapshot("s/1")
    (ws / "notes.txt").write_bytes(b"other\n")
    cps.restore(first.commit)
    assert tree_hashes(ws) == before
    assert not marker.exists()


def test_huge_files_are_skipped_by_name_and_left_alone(ws: Path, tmp_path: Path) -> None:
    cps = FileCheckpoints(ws, tmp_path / "home", max_file_bytes=1000)
    (ws / "small.bin").write_bytes(b"s" * 10)
    first = cps.snapshot("s/1")
    (ws / "huge.bin").write_bytes(b"h" * 5000)
    (ws / "small.bin").write_bytes(b"S" * 5000)  # grew past the cap after being captured
    second = cps.snapshot("s/2")
    assert set(second.skipped) == {"huge.bin", "small.bin"}
    restored = cps.restore(first.commit)
    assert (ws / "huge.bin").read_bytes() == b"h" * 5000
    assert (ws / "small.bin").read_bytes() == b"S" * 5000
    assert "small.bin" in restored.left_alone


def test_restore_never_writes_through_a_planted_symlink(ws: Path, cps: FileCheckpoints, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "d").mkdir()
    (ws / "d" / "f.txt").write_text("inside\n")
    first = cps.snapshot("s/1")
    shutil.rmtree(ws / "d")
    (ws / "d").symlink_to(outside)
    cps.restore(first.commit)
    assert list(outside.iterdir()) == []
    assert not (ws / "d").is_symlink() and (ws / "d" / "f.txt").read_text() == "inside\n"


def test_nested_repository_is_named_not_captured(ws: Path, cps: FileCheckpoints) -> None:
    subprocess.run(["git", "init", "-q", str(ws / "vendor" / "lib")], check=True)
    (ws / "vendor" / "lib" / "x.c").write_text("int x;\n")
    snap = cps.snapshot("s/1")
    assert "vendor/lib/" in snap.skipped


def test_concurrent_snapshots_share_the_store_safely(ws: Path, tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            cp = FileCheckpoints(ws, tmp_path / "home")
            for i in range(5):
                (ws / f"t{n}_{i}.txt").write_text(str(i))
                cp.snapshot(f"t{n}/{i}")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_delete_forgets_a_sessions_checkpoints(ws: Path, cps: FileCheckpoints) -> None:
    cps.snapshot("keep/1")
    cps.snapshot("gone/1")
    cps.snapshot("gone/2")
    assert cps.delete("gone") == 2
    assert cps.resolve("gone/1") is None and cps.resolve("keep/1") is not None
    with pytest.raises(ValueError):
        cps.resolve("../escape")


def test_deleting_a_sessions_checkpoints_frees_what_only_they_held(ws: Path, cps: FileCheckpoints) -> None:
    (ws / "big.bin").write_bytes(os.urandom(2_000_000))  # incompressible: its blob is ~2 MB
    cps.snapshot("gone/1")
    (ws / "big.bin").unlink()
    cps.snapshot("keep/1")  # the newest snapshot (and the index) no longer hold the big file
    full = cps.size_bytes()
    assert cps.delete("gone") == 1
    assert full - cps.size_bytes() > 1_500_000
    assert cps.resolve("keep/1") is not None


def test_no_git_is_one_sentence(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("FLUE_GIT", raising=False)
    with pytest.raises(GitMissing, match="git is not installed"):
        FileCheckpoints(ws, tmp_path / "home")
