"""`@path` attaches the file (ui/attach.py): the one function the app, inline mode, --plain and -p use."""

from __future__ import annotations

import os
from pathlib import Path

from flue_tui.ui.attach import MAX_FILE_CHARS, attach, workspace_roots


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "ops.py").write_text("def add(a, b):\n    return a + b\n```\nfence inside\n")
    (tmp_path / "calc" / "__init__.py").write_text("")
    return tmp_path


def test_a_file_is_attached_in_a_fence_after_the_prompt(tmp_path):
    root = _tree(tmp_path)
    got = attach("explain @calc/ops.py, please", str(root))
    assert got.text.startswith("explain @calc/ops.py, please\n\nContents of calc/ops.py (4 lines):\n````\n")
    assert got.text.endswith("def add(a, b):\n    return a + b\n```\nfence inside\n````")  # a longer fence
    assert got.display == "explain @calc/ops.py, please\n  ⎿ attached calc/ops.py (4 lines)"


def test_directories_missing_paths_and_mail_addresses(tmp_path):
    root = _tree(tmp_path)
    got = attach("look at @calc and @nowhere.py, mail me@example.com", str(root))
    assert "Directory listing of calc (2 entries):\n```\n__init__.py\nops.py\n```" in got.text
    assert got.notes == ("attached calc (listing, 2 entries)",)
    plain = attach("ping @someone about it", str(root))
    assert plain.text == "ping @someone about it" and plain.display is None


def test_long_files_are_cut_with_a_note_and_binaries_are_not_inlined(tmp_path):
    (tmp_path / "big.txt").write_text("x" * 99 + "\n" * 1 + ("y" * 99 + "\n") * 2000)
    (tmp_path / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0IHDR")  # a cut PNG: refused as an image
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\0\0\0")
    got = attach("@big.txt @img.png @blob.bin", str(tmp_path))
    assert len(got.text) < MAX_FILE_CHARS + 500
    assert "the rest was cut at 50000 characters" in got.text
    assert got.notes[0].startswith("attached big.txt (first 500 lines")
    assert got.notes[1] == "not attached: img.png could not be read as an image (UnidentifiedImageError)."
    assert got.notes[2] == "not attached: blob.bin is a binary file" and "PNG" not in got.text and not got.images


def test_the_workspace_sandbox_refuses_paths_outside_it(tmp_path):
    work, outside = tmp_path / "work", tmp_path / "secret"
    work.mkdir()
    outside.mkdir()
    (outside / "key.txt").write_text("TOPSECRET")
    os.symlink(outside / "key.txt", work / "link.txt")
    roots = workspace_roots("workspace", str(work), [])
    for mention in (f"@{outside / 'key.txt'}", "@../secret/key.txt", "@link.txt"):
        got = attach(f"read {mention}", str(work), roots=roots)
        assert "TOPSECRET" not in got.text
        assert got.notes and "outside the workspace" in got.notes[0], got.notes
    # local(): the user's own files anywhere, as the tools may read them
    assert "TOPSECRET" in attach("@link.txt", str(work), roots=workspace_roots("local", str(work), [])).text


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    got = attach("@pipe", str(tmp_path))
    assert got.notes == ("not attached: pipe is not a regular file",)


def test_a_read_deny_rule_keeps_the_file_out(tmp_path):
    from flue_tui.permissions.rules import FILE_PATH, matches, parse_rule

    (tmp_path / ".env").write_text("API_TOKEN=abc123\n")
    (tmp_path / "ok.txt").write_text("fine\n")
    rules = [parse_rule("read(.env)")]

    def denied(path: str) -> str | None:
        rule = matches(
            rules, "read", {"path": path}, traits=FILE_PATH, base=str(tmp_path), root=str(tmp_path), deny=True
        )
        return rule.text if rule is not None else None

    got = attach("check @.env and @ok.txt", str(tmp_path), denied=denied)
    assert "abc123" not in got.text and "fine" in got.text
    assert got.notes[0] == "not attached: .env is denied by the rule read(.env)"
