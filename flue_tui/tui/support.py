"""Whether the full-screen app can run here; kept free of Textual so the check costs nothing."""

from __future__ import annotations

import os
import sys


def tui_supported() -> bool:
    """A real terminal that can draw the app (else `flue` falls back to the line-mode front end)."""
    term = os.environ.get("TERM", "")
    return sys.stdin.isatty() and sys.stdout.isatty() and term not in ("", "dumb")
