"""LocalSandbox paths and file methods, with Node-format error texts."""

from __future__ import annotations

import errno
import os

import pytest

from flue_tui.sandbox.local import LocalSandbox, posix_resolve
from flue_tui.sandbox.node_errors import node_message, read_error, write_error
from flue_tui.core.abort import ToolError


def test_cwd_is_absolute_and_normalised(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert LocalSandbox().cwd == str(tmp_path)
    assert LocalSandbox("a/../b/./c/").cwd == f"{tmp_path}/b/c"


def test_resolve_path(tmp_path):
    sb = LocalSandbox(str(tmp_path))
    assert sb.resolve_path("x.txt") == f"{tmp_path}/x.txt"
    assert sb.resolve_path("./a//b/../c") == f"{tmp_path}/a/c"
    assert sb.resolve_path("") == str(tmp_path)
    # Absolute paths pass through untouched, without normalisation (Flue's local()).
    assert sb.resolve_path("/etc//x/../y") == "/etc//x/../y"


def test_posix_resolve_like_node():
    assert posix_resolve("/a/b", "../../../c") == "/c"
    assert posix_resolve("/a", "b/") == "/a/b"
    assert posix_resolve("/", ".") == "/"


async def test_read_text_keeps_bom_crlf_and_replaces_invalid(tmp_path):
    (tmp_path / "f.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\xff\n")
    sb = LocalSandbox(str(tmp_path))
    assert await sb.read_text("f.txt") == "\ufeffa\r\nb\ufffd\n"
    assert await sb.read_bytes("f.txt") == b"\xef\xbb\xbfa\r\nb\xff\n"


async def test_read_errors_have_node_text(tmp_path):
    sb = LocalSandbox(str(tmp_path))
    with pytest.raises(ToolError) as exc:
        await sb.read_text("nope/x.txt")
    assert str(exc.value) == f"ENOENT: no such file or directory, open '{tmp_path}/nope/x.txt'"
    with pytest.raises(ToolError) as exc:
        await sb.read_text(".")
    assert str(exc.value) == "EISDIR: illegal operation on a directory, read"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ToolError) as exc:
        await sb.read_bytes("file/child")
    assert str(exc.value) == f"ENOTDIR: not a directory, open '{tmp_path}/file/child'"


async def test_write_creates_parents_and_writes_utf8_verbatim(tmp_path):
    sb = LocalSandbox(str(tmp_path))
    await sb.write_text("a/b/c.txt", "x\r\n€\ud83d")
    # Lone surrogates become U+FFFD, as Node's UTF-8 encoder does.
    assert (tmp_path / "a/b/c.txt").read_bytes() == "x\r\n€\ufffd".encode()


async def test_write_errors_have_node_text(tmp_path):
    sb = LocalSandbox(str(tmp_path))
    (tmp_path / "dir").mkdir()
    with pytest.raises(ToolError) as exc:
        await sb.write_text("dir", "x")
    assert str(exc.value) == f"EISDIR: illegal operation on a directory, open '{tmp_path}/dir'"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ToolError) as exc:
        await sb.write_text("file/sub/x.txt", "x")
    assert str(exc.value) == f"ENOTDIR: not a directory, open '{tmp_path}/file/sub/x.txt'"


def test_errno_mapper_texts():
    eacces = OSError(errno.EACCES, os.strerror(errno.EACCES))
    assert str(read_error(eacces, "/abs/path")) == "EACCES: permission denied, open '/abs/path'"
    assert str(write_error(eacces, "/abs/path")) == "EACCES: permission denied, open '/abs/path'"
    eloop = OSError(errno.ELOOP, "x")
    assert node_message(eloop, "open", "/l") == "ELOOP: too many symbolic links encountered, open '/l'"
    odd = OSError(errno.EDOM, "x")
    assert node_message(odd, "open", None).startswith("EDOM: ")


async def test_open_binary_streams(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    sb = LocalSandbox(str(tmp_path))
    with sb.open_binary("f") as f:
        assert f.read() == b"abc"
    with pytest.raises(ToolError):
        sb.open_binary("missing")
