"""Where the command palette's "Screenshot" goes: the Downloads folder when there is one (Textual's
default), else flue's home, so the command works on a server or in a container without ~/Downloads."""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_downloads_path  # Textual's own dependency

from flue_tui.config.paths import screenshots_dir


def screenshot_dir() -> Path:
    downloads = user_downloads_path()
    if downloads.is_dir():
        return downloads
    fallback = screenshots_dir()
    fallback.mkdir(parents=True, exist_ok=True)
    return fallback
