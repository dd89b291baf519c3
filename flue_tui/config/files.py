"""~/.config/flue/config.toml (user) and <cwd>/.flue/config.toml (project): read, checked, layered.

Every error names the file, the key and what is expected. The `[permissions]` table is checked by
flue_tui/permissions/config.py, which owns it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.config.paths import config_file
from flue_tui.config.project import Held, split_env
from flue_tui.config.trust import Snapshot
from flue_tui.core.files import read_own

CHOICES = {
    "sandbox": ("local", "workspace"),
    "ui.mode": ("tui", "inline", "plain"),
    "effort": ("off", "low", "medium", "high"),
    "model.effort": ("off", "low", "medium", "high"),
    "transport": ("auto", "litellm"),
    "model.transport": ("auto", "litellm"),
}
# key -> (python type, how to say it); ints are "whole numbers > 0".
KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "model": ((str, dict), 'a string such as "anthropic/claude-sonnet-4-5", or a table ([model])'),
    "compaction_model": (str, 'a string such as "openai/gpt-4.1-mini"'),
    "auto_compact": (bool, "true or false"),
    "context_window": (int, "a whole number of tokens, more than 0"),
    "max_turns": (int, "a whole number, more than 0"),
    "idle_timeout": (float, "a number of seconds, more than 0"),
    "max_reply_chars": (int, "a whole number of characters, more than 0"),
    "sandbox": (str, '"local" or "workspace"'),
    "allow_network": (bool, "true or false"),
    "effort": (str, '"off", "low", "medium" or "high"'),
    "max_output_tokens": (int, "a whole number of tokens, more than 0"),
    "prompt_cache": (bool, "true or false"),
    "transport": (str, '"auto" (flue\'s own HTTP path where it speaks the wire, else litellm) or "litellm"'),
    "notify": (bool, "true or false"),
    "input_price": (float, "a number of USD per million input tokens, 0 or more"),
    "output_price": (float, "a number of USD per million output tokens, 0 or more"),
    "env": (dict, 'a table of strings, e.g. [env] followed by NAME = "value"'),
    "permissions": (dict, "a table ([permissions])"),
    "ui": (dict, "a table ([ui])"),
    "mcp_servers": (dict, "a table of servers ([mcp_servers.NAME]), read by flue_tui/mcp/config.py"),
    "hooks": (dict, "a table of hook events ([[hooks.PreToolUse]]), read by flue_tui/hooks/config.py"),
}
ZERO_OK = {"input_price", "output_price"}
# `[model]`: the model's name and how it is asked (a plain `model = "..."` still works).
MODEL_KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "name": (str, 'a string such as "anthropic/claude-sonnet-4-5"'),
    # The same keys as at the top level: the table only gathers them.
    "effort": KEYS["effort"],
    "max_output_tokens": KEYS["max_output_tokens"],
    "prompt_cache": KEYS["prompt_cache"],
    "transport": KEYS["transport"],
    "input_price": KEYS["input_price"],
    "output_price": KEYS["output_price"],
}
UI_KEYS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "mode": (str, '"tui", "inline" or "plain"'),
    "theme": (str, 'a Textual theme name such as "textual-dark"'),
}
ENV_VARS = {
    "FLUE_MODEL": "model",
    "FLUE_COMPACTION_MODEL": "compaction_model",
    "FLUE_AUTO_COMPACT": "auto_compact",
    "FLUE_CONTEXT_WINDOW": "context_window",
    "FLUE_MAX_TURNS": "max_turns",
    "FLUE_SANDBOX": "sandbox",
    "FLUE_ALLOW_NETWORK": "allow_network",
    "FLUE_PROMPT_CACHE": "prompt_cache",
    "FLUE_EFFORT": "effort",
    "FLUE_MAX_OUTPUT_TOKENS": "max_output_tokens",
    "FLUE_INPUT_PRICE": "input_price",
    "FLUE_OUTPUT_PRICE": "output_price",
    "FLUE_UI": "ui.mode",
    "FLUE_THEME": "ui.theme",
    "FLUE_IDLE_TIMEOUT": "idle_timeout",
    "FLUE_MAX_REPLY_CHARS": "max_reply_chars",
    "FLUE_TRANSPORT": "transport",
    "FLUE_NOTIFY": "notify",
}


@dataclass(frozen=True, slots=True)
class Layer:
    """One config source's settings, flat, with what a project file may not set until it is trusted."""

    source: str  # a file path or "environment"
    values: dict[str, Any]  # flat: "model", "env", "ui.mode", ...
    held: tuple[Held, ...] = ()  # a project's loosening settings, waiting for trust (config/project.py)
    never: tuple[str, ...] = ()  # [env] names never taken from a project file
    mcp_servers: bool = False  # the file has [mcp_servers] (only the user's file may)
    hooks: bool = False  # the file has [hooks] (only the user's file may: they run commands)
    # The tables other modules own ([permissions], [mcp_servers]) with how many entries each holds,
    # so `flue doctor` can say what such a file holds instead of "no settings".
    tables: tuple[tuple[str, int], ...] = ()
    skipped: str | None = None  # the file could not be read: the notice saying so (Unreadable)


def user_file() -> Path:
    return config_file()


def project_file(cwd: str) -> Path:
    return Path(cwd) / ".flue" / "config.toml"


def _type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _check(where: str, key: str, value: Any, kind: type | tuple[type, ...], expected: str) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)  # TOML's `3` is as good a price (or number of seconds) as `3.0`
    ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
    # Prices may be 0 (a free local model); every other number must be more than 0. NaN is neither.
    if ok and kind in (int, float) and not (value >= 0 if key in ZERO_OK else value > 0):
        ok = False
    if ok and key in CHOICES and value not in CHOICES[key]:
        ok = False
    if not ok:
        raise ConfigError(f"{where}: {key} must be {expected}, not {_type_name(value)} ({value!r})")
    return value


class Unreadable(ConfigError):
    """An optional file flue cannot read: something other than a regular file in its place (a
    directory, a FIFO, a device), no permission, larger than flue reads, or, for a JSON settings
    file another program writes (Claude Code's), not UTF-8 JSON. Every config file flue reads is
    optional: it is skipped with this one sentence and flue starts without it, never stops."""


def unreadable(path: Path | str, why: str) -> Unreadable:
    return Unreadable(f"Skipped {path}: flue cannot read it ({why}).")


def read_bytes(path: Path, snapshot: Snapshot | None = None) -> bytes | None:
    """A config file's bytes (None: there is none) through the one bounded open of flue's own
    files, or the snapshot's when the trust decision already read them (parse what was judged).
    Unreadable when it cannot be read: the one place every optional config file is opened."""
    if snapshot is not None:
        if snapshot.error is not None:
            raise unreadable(path, snapshot.error)
        return snapshot.data
    try:
        return read_own(str(path))  # regular files only: a FIFO must not hang start-up, /dev/zero not fill memory
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise unreadable(path, str(exc.strerror or exc)) from None


def read_json(path: Path, snapshot: Snapshot | None = None) -> Any:
    """A JSON settings file (Claude Code's `settings.json`): its value, or None when there is none.
    Not UTF-8 or not JSON is Unreadable, as a file that cannot be opened: another program writes it."""
    raw = read_bytes(path, snapshot)
    if raw is None:
        return None
    from flue_tui.core.jsonargs import loads

    try:
        return loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise unreadable(path, f"not UTF-8 text, byte 0x{raw[exc.start]:02x} at offset {exc.start}") from None
    except ValueError as exc:
        raise unreadable(path, f"not valid JSON: {exc}") from None


def read_toml(path: Path, snapshot: Snapshot | None = None) -> dict[str, Any] | None:
    """The parsed TOML of a config file (None: there is none); every failure one ConfigError."""
    raw = read_bytes(path, snapshot)
    if raw is None:
        return None
    import tomllib  # only with a file to parse: otherwise it would delay the app's first frame

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # tomllib decodes the bytes itself
        line = exc.object[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} on line {line}); TOML files must be UTF-8"
        ) from None


def read_layer(path: Path, snapshot: Snapshot | None = None) -> Layer | None:
    data = read_toml(path, snapshot)
    if data is None:
        return None
    where = str(path)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} (known keys: {', '.join(KEYS)})")
        value = _check(where, key, value, *KEYS[key])
        if key == "env":
            for name, item in value.items():
                if not isinstance(item, str):
                    raise ConfigError(f"{where}: env.{name} must be a string, not {_type_name(item)} ({item!r})")
            values["env"] = dict(value)
        elif key == "model" and isinstance(value, dict):
            for name, item in value.items():
                if name not in MODEL_KEYS:
                    raise ConfigError(
                        f"{where}: unknown key 'model.{name}' (known keys: "
                        f"{', '.join('model.' + k for k in MODEL_KEYS)})"
                    )
                values["model" if name == "name" else name] = _check(where, f"model.{name}", item, *MODEL_KEYS[name])
        elif key == "ui":
            for name, item in value.items():
                if name not in UI_KEYS:
                    raise ConfigError(
                        f"{where}: unknown key 'ui.{name}' (known keys: {', '.join('ui.' + k for k in UI_KEYS)})"
                    )
                values[f"ui.{name}"] = _check(where, f"ui.{name}", item, *UI_KEYS[name])
        elif key not in ("permissions", "mcp_servers", "hooks"):
            values[key] = value
    tables = tuple((key, len(data[key])) for key in ("mcp_servers", "permissions") if isinstance(data.get(key), dict))
    return Layer(where, values, mcp_servers="mcp_servers" in data, tables=tables, hooks="hooks" in data)


def _parse_env(var: str, key: str, raw: str) -> Any:
    kind, expected = KEYS.get(key) or UI_KEYS[key.split(".", 1)[1]]
    value: Any = raw
    if kind is bool:
        lowered = raw.strip().lower()
        if lowered not in ("1", "0", "true", "false", "yes", "no"):
            raise ConfigError(f"{var} must be {expected} (or 1/0), not {raw!r}")
        value = lowered in ("1", "true", "yes")
    elif kind in (int, float):
        try:
            value = kind(raw)
        except ValueError:
            raise ConfigError(f"{var} must be {expected}, not {raw!r}") from None
    return _check(var, key, value, kind, expected)


def env_layer(environ: dict[str, str] | os._Environ[str] = os.environ) -> Layer:
    values = {key: _parse_env(var, key, environ[var]) for var, key in ENV_VARS.items() if environ.get(var)}
    return Layer("environment", values)


def reads(sources: tuple[str, ...] | None, kind: str) -> bool:
    """--setting-sources: whether the user ("user") or project ("project") file is read at all
    (Claude Code's "local" is the project file too; None reads both)."""
    if sources is None:
        return True
    return "user" in sources if kind == "user" else bool({"project", "local"} & set(sources))


def layers(
    cwd: str, *, trusted: bool = False, sources: tuple[str, ...] | None = None, project_read: Snapshot | None = None
) -> list[Layer]:
    """Lowest precedence first: user file, project file, FLUE_* environment. The project file's
    [env] applies only once the user trusts the project, and never its code-running variables.
    `project_read`: the project file as read for the trust decision, parsed instead of read again."""
    out = []
    user = _optional(user_file(), None) if reads(sources, "user") else None
    if user is not None:
        out.append(user)
    project = _optional(project_file(cwd), project_read) if reads(sources, "project") else None
    if project is not None and project.skipped is not None:
        out.append(project)
        project = None
    if project is not None:
        _project_cannot_loosen(project)
        values = dict(project.values)
        held: list[Held] = []
        never: list[str] = []
        if "env" in values:
            values["env"], held, never = split_env(values["env"], trusted)
        out.append(Layer(project.source, values, tuple(held), tuple(never)))
    return [*out, env_layer()]


def _optional(path: Path, snapshot: Snapshot | None) -> Layer | None:
    """The file's layer; one that cannot be read is an empty layer carrying the notice."""
    try:
        return read_layer(path, snapshot)
    except Unreadable as exc:
        return Layer(str(path), {}, skipped=str(exc))


def _project_cannot_loosen(project: Layer) -> None:
    """A cloned repository's config must not weaken the containment its user chose."""
    if project.values.get("sandbox") == "local":
        raise ConfigError(
            f'{project.source}: sandbox = "local" is only accepted from your own {user_file()} or the --sandbox flag'
        )
    if project.mcp_servers:
        raise ConfigError(
            f"{project.source}: mcp_servers is only read from your own {user_file()}; a project lists "
            "its servers in .mcp.json"
        )
    if project.hooks:
        raise ConfigError(
            f"{project.source}: hooks is only read from your own {user_file()}; a project lists "
            "its hooks in .claude/settings.json"
        )
    if project.values.get("allow_network") is True:
        raise ConfigError(
            f"{project.source}: allow_network = true is only accepted from your own {user_file()} "
            "or the --allow-network flag"
        )
    for key in ("input_price", "output_price"):
        # A price decides when --max-budget-usd stops a run: a repository could set it to 0.
        if key in project.values:
            raise ConfigError(
                f"{project.source}: {key} is only accepted from your own {user_file()} or FLUE_{key.upper()}"
            )
