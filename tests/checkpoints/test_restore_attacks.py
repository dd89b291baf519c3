"""Issue 23's own attacks on the restore (checkpoints/restore.py, record.py, stack.py), on real files:
names that are not UTF-8 or hold newlines, a large file streamed back, a symlink planted where a
directory was, a directory where a file was, an unwritable directory, a checkpoint from an older
flue that records nothing about what it left out."""

from __future__ import annotations

import os
from pathlib import Path

from flue_tui.checkpoints import FileCheckpoints, stack


def _cps(tmp_path: Path) -> tuple[Path, FileCheckpoints]:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws, FileCheckpoints(ws, tmp_path / "home")


def test_names_that_are_not_utf8_or_hold_newlines_come_back_byte_for_byte(tmp_path):
    ws, cps = _cps(tmp_path)
    odd = [b"caf\xe9.txt", b"line\nbreak.txt", b"sub/\xff\xfe", b" lead and trail "]
    for name in odd:
        path = os.path.join(os.fsencode(ws), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(name + b"\n")
    first = cps.snapshot("s/1")
    for name in odd:
        os.unlink(os.path.join(os.fsencode(ws), name))
    with open(os.path.join(os.fsencode(ws), b"new\xe9"), "wb") as fh:
        fh.write(b"created since\n")
    done = cps.restore(first.commit)
    assert not done.not_restored
    for name in odd:
        with open(os.path.join(os.fsencode(ws), name), "rb") as fh:
            assert fh.read() == name + b"\n"
    assert not os.path.exists(os.path.join(os.fsencode(ws), b"new\xe9"))


def test_a_large_file_is_streamed_back_exactly(tmp_path):
    ws, cps = _cps(tmp_path)
    data = os.urandom(1 << 20) * 9  # 9 MB: under the cap, so captured; read back in chunks
    (ws / "big.bin").write_bytes(data)
    first = cps.snapshot("s/1")
    (ws / "big.bin").write_bytes(b"small now")
    assert cps.restore(first.commit).written == ("big.bin",)
    assert (ws / "big.bin").read_bytes() == data


def test_a_symlink_planted_where_a_directory_was_is_never_written_through(tmp_path):
    ws, cps = _cps(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("outside\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "a.txt").write_text("inside\n")
    first = cps.snapshot("s/1")
    (ws / "sub" / "a.txt").unlink()
    (ws / "sub").rmdir()
    os.symlink(outside, ws / "sub")
    done = cps.restore(first.commit)
    assert (outside / "a.txt").read_text() == "outside\n" and os.listdir(outside) == ["a.txt"]
    # The link was the turn's (a path in neither state is vouched for), so it goes and the directory comes back.
    assert (ws / "sub").is_dir() and not (ws / "sub").is_symlink(), done
    assert (ws / "sub" / "a.txt").read_text() == "inside\n"


def test_file_and_directory_swapped_both_ways(tmp_path):
    ws, cps = _cps(tmp_path)
    (ws / "x").write_text("a file\n")
    (ws / "d").mkdir()
    (ws / "d" / "in.txt").write_text("in d\n")
    first = cps.snapshot("s/1")
    (ws / "x").unlink()
    (ws / "x").mkdir()
    (ws / "x" / "y").write_text("now a dir\n")
    (ws / "d" / "in.txt").unlink()
    (ws / "d").rmdir()
    (ws / "d").write_text("now a file\n")
    cps.restore(first.commit)
    assert (ws / "x").read_text() == "a file\n" and (ws / "d" / "in.txt").read_text() == "in d\n"


def test_a_path_that_cannot_be_written_is_named_and_the_rest_go_on(tmp_path):
    ws, cps = _cps(tmp_path)
    (ws / "a.txt").write_text("a\n")
    (ws / "d").mkdir()
    (ws / "d" / "b.txt").write_text("b\n")
    first = cps.snapshot("s/1")
    (ws / "a.txt").write_text("changed\n")
    (ws / "d" / "b.txt").unlink()
    (ws / "d").rmdir()
    (ws / "d").mkdir()
    (ws / "d" / "b.txt").mkdir()  # a directory where the file must go: it is never removed
    done = cps.restore(first.commit)
    assert (ws / "a.txt").read_text() == "a\n"
    assert ("d/b.txt", "a directory is there now") in done.not_restored


def test_a_checkpoint_that_records_nothing_it_left_out_removes_nothing(tmp_path):
    ws, cps = _cps(tmp_path)
    (ws / "a.txt").write_text("a\n")
    cps.snapshot(None)
    # As an older flue committed it: the same tree, no record in the message.
    tree = cps.git.run(["rev-parse", "HEAD^{tree}"]).decode().strip()
    old = cps.git.run(["commit-tree", tree, "-m", "before message 1: hi"]).decode().strip()
    cps.keep("s/1", old)
    (ws / "made-later.txt").write_text("maybe the user's\n")
    done = cps.restore(old)
    assert (ws / "made-later.txt").exists() and [p for p, _ in done.not_restored] == ["made-later.txt"]


def test_an_old_single_undo_point_is_still_undone(tmp_path):
    ws, cps = _cps(tmp_path)
    (ws / "a.txt").write_text("before the rewind\n")
    snap = cps.snapshot(None)
    cps.keep("s/undo", snap.commit)  # what an older flue kept
    (ws / "a.txt").write_text("after\n")
    assert stack.depth(cps, "s") == 1
    assert stack.undo(cps, "s", force=True) is not None
    assert (ws / "a.txt").read_text() == "before the rewind\n" and stack.depth(cps, "s") == 0
