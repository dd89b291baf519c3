"""An image from the system clipboard (the app's Ctrl+V): the one place that knows which program
each platform offers. Wayland's `wl-paste`, X11's `xclip`, macOS's `pngpaste` (pbpaste gives only
text); the bytes then go through core/images.py like a file's. No program, or no image on the
clipboard, is one sentence; the program is read for at most TIMEOUT and MAX_READ + 1 bytes."""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time

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


def _read(command: list[str]) -> tuple[int | None, bytes]:
    """(exit code or None when stopped, at most MAX_READ + 1 bytes of stdout) within TIMEOUT: the
    clipboard's owner is any program, and one that prints without end is cut, not read whole."""
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    assert proc.stdout is not None
    out = bytearray()
    deadline = time.monotonic() + TIMEOUT
    with proc.stdout, selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while len(out) <= MAX_READ and (left := deadline - time.monotonic()) > 0:
            if not sel.select(left):
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            if not chunk:
                return proc.wait(), bytes(out)
            out += chunk
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return None, bytes(out) if len(out) > MAX_READ else b""


def clipboard_image() -> Image | str:
    """The clipboard's image, or the sentence saying why there is none."""
    commands = _commands()
    if not commands:
        return NO_TOOL
    for command in commands:
        try:
            code, data = _read(command)
        except OSError:
            continue
        if (code == 0 or len(data) > MAX_READ) and data:
            try:
                return from_bytes(data[: MAX_READ + 1], "clipboard.png")
            except ImageRefused as exc:
                return f"Not attached: {exc}"
    return "The clipboard holds no image."
