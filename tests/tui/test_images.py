"""Images in the app, by Pilot against the scripted server: `@shot.png` and a dropped path attach
(a chip under the prompt), Ctrl+V takes the clipboard's image through the platform's program (a
real `wl-paste` script on PATH), says so when there is none, and a model without vision is told
before any request."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakellm import Turn
from tests.images.pictures import png
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


def _sent_types(fakellm) -> list[str]:
    content = fakellm.requests[-1]["messages"][-1]["content"]
    return [p["type"] for p in content] if isinstance(content, list) else ["text"]


async def test_at_image_attaches_with_a_chip(make_app, fakellm, work: Path):
    (work / "shot.png").write_bytes(png(4, 4))
    fakellm.script([Turn(text="A red square.")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "what is @shot.png")
        await idle(pilot)
        text = screen_text(app)
        assert "attached [image shot.png · 1 KB]" in text, text
        assert "A red square." in text
    assert _sent_types(fakellm) == ["text", "image_url"]


@pytest.fixture
def clipboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A Wayland session whose clipboard program is a real script printing `image` (bytes)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()

    def offer(data: bytes | None) -> None:
        (tmp_path / "clip.bin").write_bytes(data or b"")
        script = bin_dir / "wl-paste"
        script.write_text(f"#!/bin/sh\n{'cat ' + str(tmp_path / 'clip.bin') if data else 'exit 1'}\n")
        script.chmod(0o755)

    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
    monkeypatch.delenv("DISPLAY", raising=False)
    return offer


async def test_ctrl_v_attaches_the_clipboard_image(make_app, fakellm, clipboard):
    clipboard(png(6, 6))
    fakellm.script([Turn(text="Seen.")])
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "📎 [image clipboard.png" in screen_text(app))
        await submit(pilot, "what is this")
        await idle(pilot)
        text = screen_text(app)
        assert "attached [image clipboard.png · 1 KB]" in text and "📎" not in text, text
    assert _sent_types(fakellm) == ["text", "image_url"]


async def test_ctrl_v_without_an_image_says_so(make_app, fakellm, clipboard, monkeypatch):
    clipboard(None)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "The clipboard holds no image." in screen_text(app))
        monkeypatch.setenv("PATH", "/nonexistent")
        await pilot.press("ctrl+v")
        await wait_for(pilot, lambda: "No clipboard image: install wl-clipboard" in screen_text(app))
    assert fakellm.requests == []


async def test_a_model_without_vision_is_told_before_any_request(make_app, fakellm, work: Path):
    (work / "shot.png").write_bytes(png())
    app = make_app(model="openai/gpt-3.5-turbo")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "what is @shot.png")
        await wait_for(pilot, lambda: "does not take images" in screen_text(app))
        await idle(pilot)
    assert fakellm.requests == []


async def test_hostile_files_are_one_line_each(make_app, fakellm, work: Path):
    (work / "fake.png").write_bytes(b"<?php evil(); ?>")
    os.symlink("/etc/shadow", work / "shadow.png")
    fakellm.script([Turn(text="ok")])
    app = make_app(sandbox="workspace")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "look @fake.png @shadow.png")
        await idle(pilot)
        text = screen_text(app)
        assert "not attached: fake.png is not a PNG, JPEG, GIF or WebP image." in text, text
        assert "not attached: shadow.png is outside the workspace" in text, text
    assert _sent_types(fakellm) == ["text"]
