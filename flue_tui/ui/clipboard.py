"""An image from the system clipboard (the app's Ctrl+V): the one place that knows which program
each platform offers. Wayland's `wl-paste`, X11's `xclip`, macOS's `pngpaste` (pbpaste gives only
text); the bytes then go through core/images.py like a file's. No program, or no image on the
clipboard, is one sentence."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from flue_tui.core.images import MAX_READ, Image, ImageRefused, from_bytes

TIMEOUT = 5.0  # seconds: a clipboard owner that never answers must not hang the app
NO_TOOL = (
    "No clipboard image: install wl-clipboard (Wayland), xclip (X11) or pngpaste (macOS), "
    "or attach the file with @path."
)


def _commands() -> list[list[str]]:
    found: list[list[str]] = []
    if sys.platform == "darwin" and shutil.which("pngpaste"):
        found.append(["pngpaste", "-"])
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        found.append(["wl-paste", "--no-newline", "--type", "image/png"])
    if os.environ.get("DISPLAY") and shutil.which("xclip"):
        found.append(["xclip", "-selection", "clipboard", "-target", "image/png", "-out"])
    return found


def clipboard_image() -> Image | str:
    """The clipboard's image, or the sentence saying why there is none."""
    commands = _commands()
    if not commands:
        return NO_TOOL
    for command in commands:
        try:
            done = subprocess.run(command, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0 and done.stdout:
            try:
                return from_bytes(done.stdout[: MAX_READ + 1], "clipboard.png")
            except ImageRefused as exc:
                return f"Not attached: {exc}"
    return "The clipboard holds no image."
