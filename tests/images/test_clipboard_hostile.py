"""The clipboard's program is someone else's process (any app owns the clipboard): one that never
ends while a child of its own holds the pipe, or one that prints without end, gets one sentence
in bounded time and memory, never a hang of the app's worker or gigabytes read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flue_tui.ui import clipboard
from tests.images.pictures import png


@pytest.fixture
def wl_paste(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr(clipboard, "TIMEOUT", 1.0)  # the wait is the product's; shorter so the test is quick

    def script(body: str) -> None:
        path = bin_dir / "wl-paste"
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)

    return script


def test_a_clipboard_program_whose_child_holds_the_pipe_does_not_hang(wl_paste, tmp_path: Path):
    # The program's background child keeps stdout open for as long as the test lets it (a file
    # the test creates only at the end): before, the timeout killed the program and then waited
    # for the pipe's end, i.e. for the child.
    gate = tmp_path / "gate"
    wl_paste(f"(while [ ! -e {gate} ]; do sleep 0.1; done) &\nexec sleep 600")
    try:
        assert clipboard.clipboard_image() == "The clipboard holds no image."
    finally:
        gate.write_text("")


def test_a_clipboard_program_that_never_stops_printing_is_cut_at_the_read_bound(wl_paste):
    wl_paste("cat /dev/zero")
    got = clipboard.clipboard_image()
    assert got == "Not attached: clipboard.png is larger than 20 MB; images are limited to that.", got


def test_a_clipboard_image_still_attaches(wl_paste, tmp_path: Path):
    (tmp_path / "clip.png").write_bytes(png(5, 5))
    wl_paste(f"cat {tmp_path / 'clip.png'}")
    got = clipboard.clipboard_image()
    assert not isinstance(got, str) and got.media_type == "image/png", got
