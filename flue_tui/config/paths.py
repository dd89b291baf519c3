"""Where flue keeps its files. One place decides it; every other module asks here.

* Config, what the user writes: `$XDG_CONFIG_HOME/flue` (default `~/.config/flue`): `config.toml`,
  `skills/`.
* Data, what flue writes: `$XDG_DATA_HOME/flue` (default `~/.local/share/flue`): `sessions.db`,
  `checkpoints/`, `history/`, `trusted-projects.json`, `screenshots/`.
* `$FLUE_HOME` set: both are that one directory (how tests and CI jobs keep their state apart).

Earlier versions kept the config in the data directory too. Those files are never moved: a move
could be cut half-way, and an older flue running beside this one would lose its config. Instead,
while the new location has no `config.toml` (or `skills/`), the one in the data directory is read,
as before. Once the new one exists it wins, and `legacy_notice()` says in one line that the old
one is ignored (a deny rule there must not vanish unnoticed). XDG variables that are not absolute
paths are ignored, as the XDG Base Directory specification requires.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_NAME = "config.toml"
SKILLS_NAME = "skills"


def _xdg(var: str, default: str) -> Path:
    value = os.environ.get(var, "")
    if not os.path.isabs(value):  # unset, empty or relative: the spec's default
        value = os.path.join(os.path.expanduser("~"), default)
    return Path(value) / "flue"


def _explicit() -> Path | None:
    explicit = os.environ.get("FLUE_HOME")
    return Path(explicit).expanduser() if explicit else None


def data_dir() -> Path:
    """Where flue writes: $FLUE_HOME, else $XDG_DATA_HOME/flue (~/.local/share/flue)."""
    return _explicit() or _xdg("XDG_DATA_HOME", os.path.join(".local", "share"))


def config_dir() -> Path:
    """Where the user's config lives: $FLUE_HOME, else $XDG_CONFIG_HOME/flue (~/.config/flue)."""
    return _explicit() or _xdg("XDG_CONFIG_HOME", ".config")


def _config_entry(name: str) -> Path:
    """The new location, unless only the old one (in the data directory) exists."""
    new = config_dir() / name
    old = data_dir() / name
    if new == old or os.path.lexists(new) or not os.path.lexists(old):
        return new
    return old


def config_file() -> Path:
    """The user's config.toml."""
    return _config_entry(CONFIG_NAME)


def skills_dir() -> Path:
    """The user's skills directory."""
    return _config_entry(SKILLS_NAME)


def db_file() -> Path:
    return data_dir() / "sessions.db"


def checkpoints_home() -> Path:
    """The directory checkpoint stores go under (checkpoints/<workspace hash> inside it)."""
    return data_dir()


def history_dir() -> Path:
    return data_dir() / "history"


def trust_file() -> Path:
    return data_dir() / "trusted-projects.json"


def screenshots_dir() -> Path:
    return data_dir() / "screenshots"


def own_locations() -> tuple[Path, ...]:
    """Every directory and file flue reads its own configuration, trust and state from: a change to
    one can loosen what flue allows (a config.toml allow rule, a forged trust entry), so the
    permission policy asks before any write there (flue_tui/permissions/scope.py). The files are
    named as well as their directories, since either may be a symlink to somewhere else."""
    return (config_dir(), data_dir(), config_file(), skills_dir(), trust_file(), db_file(), history_dir())


def legacy_notice() -> str | None:
    """One line when an old-layout config file is ignored because the new one exists, else None."""
    for name in (CONFIG_NAME, SKILLS_NAME):
        new, old = config_dir() / name, data_dir() / name
        if new != old and os.path.lexists(new) and os.path.lexists(old):
            return f"{old} is ignored now that {new} exists: move what you still need into it and delete the old one."
    return None


def describe() -> str:
    """For `flue doctor`: where config and data are."""
    if _explicit() is not None:
        return f"FLUE_HOME is {data_dir()} (config and data)"
    return f"config in {config_file()}, data in {data_dir()}"
