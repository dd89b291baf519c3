"""Where flue keeps its files. One place decides it.

Today everything lives under `flue_home()`: `$FLUE_HOME` if set, else `$XDG_DATA_HOME/flue`
(`~/.local/share/flue`): config.toml, sessions.db, trusted.json, history/, skills/. Moving the
config to `$XDG_CONFIG_HOME` (issue 15, item 3) changes where users' files are and is left to a
later step that migrates them; it happens here, nowhere else.
"""

from __future__ import annotations

import os
from pathlib import Path


def flue_home() -> Path:
    """$FLUE_HOME, else the platform's user data dir ($XDG_DATA_HOME/flue or ~/.local/share/flue)."""
    explicit = os.environ.get("FLUE_HOME")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "flue"
