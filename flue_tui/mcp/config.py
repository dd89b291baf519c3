"""Which MCP servers to run: Claude Code's `.mcp.json`, `[mcp_servers.NAME]` in the user's
config.toml, and `--mcp-config FILE|JSON` (with `--strict-mcp-config`, only those).

Precedence for one name: --mcp-config > user config.toml > project .mcp.json (a cloned repository
cannot shadow the user's own `github` server). A project's `.mcp.json` names programs to start, so
it applies only once the user trusts the directory (flue_tui/config/trust.py, by the file's SHA-256) or
passes --trust-project; until then its servers are listed in one notice and not started.

Every error is one sentence naming the file and the key. An error in your own files stops the
start; one in a project's `.mcp.json` is a notice and its servers are ignored (a repository written
for a newer Claude Code must not keep flue from starting).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from flue_tui.config import trust
from flue_tui.config.errors import ConfigError
from flue_tui.config.trust import Snapshot
from flue_tui.core.files import workspace_roots
from flue_tui.core.jsonargs import loads
from flue_tui.sandbox.procguard import ENV_ALLOWLIST

PROJECT_FILE = ".mcp.json"
DEFAULT_TOOL_TIMEOUT = 60.0
DEFAULT_STARTUP_TIMEOUT = 30.0
# No `__` and no `_` at the end: a tool is `mcp__SERVER__TOOL`, and a rule `mcp__github` must mean
# the server `github` alone, never `github__helper` (or `github_` with a tool `_sync`).
NAME = r"^(?!.*__)[A-Za-z0-9_-]{0,63}[A-Za-z0-9-]$"
NAME_RULE = "must be 1-64 letters, digits, '_' or '-', without '__' or a '_' at the end"
_VAR = r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}"
Transport = Literal["stdio", "http", "sse", "sdk"]
# Keys a server entry may have, in either file format.
KNOWN = frozenset(
    {
        "type",
        "name",  # an Agent SDK server's ({"type": "sdk", "name": …}); ignored elsewhere
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "enabled",
        "tool_timeout_sec",
        "startup_timeout_sec",
        "trust_read_only_hint",
    }
)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One configured MCP server: how to reach it and where it was configured."""

    name: str
    transport: Transport
    source: str  # the file it came from, or "--mcp-config"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    tool_timeout: float = DEFAULT_TOOL_TIMEOUT
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    # Tools the server marks readOnlyHint run without asking (and in plan mode) only when the user
    # says so for that server: the hint is the server's claim, not a fact.
    trust_read_only_hint: bool = False

    def describe(self) -> str:
        if self.transport == "stdio":
            return " ".join([self.command or "", *self.args]).strip()
        if self.transport == "sdk":
            return "in the Agent SDK's process"
        return f"{self.transport} {self.url}"


@dataclass(frozen=True, slots=True)
class McpSetup:
    """The MCP servers to start, the notices about them, and a project's servers waiting for trust."""

    servers: tuple[ServerConfig, ...] = ()
    notices: tuple[str, ...] = ()
    held: tuple[ServerConfig, ...] = field(default=())  # the project's servers waiting for trust
    # The digest and trust state of the very .mcp.json bytes the servers were parsed from.
    project_sha256: str | None = None
    project_state: str = "untrusted"


def _expand(text: str, where: str, project: bool) -> str:
    """`${VAR}` and `${VAR:-default}` from flue's environment, as Claude Code does. A project file
    reads only the variables every command flue runs gets anyway (PATH, HOME, LANG, …: the
    sandbox's allowlist), so expanding one hands its server nothing new: a token, a cloud secret,
    a database URL or an ssh agent socket never leaves through a repository's file."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if project and name not in ENV_ALLOWLIST:
            raise ConfigError(
                f"{where} refers to ${{{name}}}: a project's {PROJECT_FILE} may not read flue's environment "
                f"beyond what every command gets ({', '.join(ENV_ALLOWLIST[:3])}, …); put this server in your "
                "own config.toml"
            )
        value = os.environ.get(name)
        if value is None:
            value = m.group(2)
        if value is None:
            raise ConfigError(f"{where} refers to ${{{name}}}, which is not set")
        return value

    return re.sub(_VAR, sub, text)


def _strings(value: Any, where: str, project: bool) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where} must be a table of strings")
    return tuple((str(k), _expand(v, f"{where}.{k}", project)) for k, v in value.items())


def _seconds(entry: dict[str, Any], key: str, where: str, default: float) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{where}.{key} must be a number of seconds, more than 0")
    return float(value)


def parse_server(
    name: str, entry: Any, source: str, *, prefix: str, project: bool = False, notices: list[str] | None = None
) -> ServerConfig | None:
    """One server entry (None when `enabled = false`); `prefix` is how the error names it. What a
    project's file may not set is left out, with a line in `notices`."""
    where = f"{source}: {prefix}{name}"
    if not re.match(NAME, name):
        raise ConfigError(f"{source}: server name {name!r} {NAME_RULE}")
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table with command or url")
    unknown = sorted(set(entry) - KNOWN)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: command, args, env, cwd, type, url, headers, "
            "enabled, tool_timeout_sec, startup_timeout_sec, trust_read_only_hint)"
        )
    if entry.get("enabled", True) is False:
        return None
    kind = entry.get("type") or ("stdio" if "command" in entry else "http")
    kind = {"streamable-http": "http", "streamable_http": "http"}.get(kind, kind)
    if kind not in ("stdio", "http", "sse", "sdk"):
        raise ConfigError(f'{where}.type must be "stdio", "http" or "sse", not {kind!r}')
    common: dict[str, Any] = {
        "tool_timeout": _seconds(entry, "tool_timeout_sec", where, DEFAULT_TOOL_TIMEOUT),
        "startup_timeout": _seconds(entry, "startup_timeout_sec", where, DEFAULT_STARTUP_TIMEOUT),
        # The hint lets a server's own claim skip the question: the user's word, never a repository's.
        "trust_read_only_hint": entry.get("trust_read_only_hint") is True and not project,
    }
    if project and "trust_read_only_hint" in entry and notices is not None:
        notices.append(
            f"Ignored from {PROJECT_FILE}: trust_read_only_hint of server {name} (only your own config.toml or "
            "--mcp-config may trust a server's read-only hints)."
        )
    if kind == "sdk":
        # An in-process server of the Agent SDK script (create_sdk_mcp_server): it runs in the
        # script, reached by `mcp_message` control requests (mcp/sdkserver.py). A project's file
        # cannot name one into being: without the SDK on stdin it only fails to start.
        return ServerConfig(name, "sdk", source, **common)
    if kind == "stdio":
        command = entry.get("command")
        args = entry.get("args", [])
        if not isinstance(command, str) or not command.strip():
            raise ConfigError(f'{where}.command must be the program to run, e.g. "npx"')
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigError(f"{where}.args must be a list of strings")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ConfigError(f"{where}.cwd must be a string")
        return ServerConfig(
            name,
            "stdio",
            source,
            command=_expand(command, f"{where}.command", project),
            args=tuple(_expand(a, f"{where}.args", project) for a in args),
            env=_strings(entry.get("env", {}), f"{where}.env", project),
            cwd=cwd,
            **common,
        )
    url = entry.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}.url must be an http:// or https:// URL")
    return ServerConfig(
        name,
        kind,
        source,
        url=_expand(url, f"{where}.url", project),
        headers=_strings(entry.get("headers", {}), f"{where}.headers", project),
        **common,
    )


def parse_json_servers(
    text: str, source: str, *, project: bool = False, notices: list[str] | None = None
) -> list[ServerConfig]:
    """Claude Code's format: {"mcpServers": {NAME: {...}}}."""
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError(f'{source}: expected an object with "mcpServers"')
    out = [
        parse_server(name, entry, source, prefix="mcpServers.", project=project, notices=notices)
        for name, entry in servers.items()
    ]
    return [s for s in out if s is not None]


def user_servers(path: Path) -> list[ServerConfig]:
    """`[mcp_servers.NAME]` tables of the user's config.toml (config_files.py checks the TOML)."""
    from flue_tui.config.files import read_toml

    data = read_toml(path)
    if data is None:
        return []
    table = data.get("mcp_servers", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: mcp_servers must be a table ([mcp_servers.NAME])")
    out = [parse_server(name, entry, str(path), prefix="mcp_servers.") for name, entry in table.items()]
    return [s for s in out if s is not None]


def flag_servers(values: list[str]) -> list[ServerConfig]:
    out: list[ServerConfig] = []
    for value in values:
        text, source = value, "--mcp-config"
        if not value.lstrip().startswith("{"):
            try:
                # Named by the user (a process substitution is a FIFO): read as given, not as a repository file.
                text = Path(value).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"Cannot read --mcp-config file {value}: {getattr(exc, 'strerror', None) or exc}"
                ) from None
            source = value
        out.extend(parse_json_servers(text, source))
    return out


def project_path(cwd: str) -> Path:
    return Path(cwd) / PROJECT_FILE


def project_servers(
    cwd: str, roots: tuple[str, ...] | None = None, notices: list[str] | None = None
) -> tuple[list[ServerConfig], Snapshot]:
    """The project's servers and the one read of .mcp.json they were parsed from (its trust
    judged on those bytes); `roots`: the workspace sandbox's, which a linked file must not leave."""
    read = trust.read(cwd, PROJECT_FILE, roots)
    path = project_path(cwd)
    if read.error is not None:
        raise ConfigError(f"Cannot read {path}: {read.error}")
    if read.data is None:
        return [], read
    try:
        text = read.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"Cannot read {path}: {exc}") from None
    return parse_json_servers(text, str(path), project=True, notices=notices), read


def program_files(cwd: str, servers: list[ServerConfig] | tuple[ServerConfig, ...]) -> tuple[str, ...]:
    """The repository files a project's stdio servers run: the command and every argument (or the
    value of an `--opt=FILE` argument) that is a regular file inside the project, relative to the
    server's cwd, as paths from the project's real root. Trust covers them by SHA-256 beside
    `.mcp.json`, so a pull that changes `server.py` asks again. Resolved as the kernel will (a
    `link/../server.py` through a symlink is the file it reaches); a file outside the project is
    no repository file and is not covered, nor a module `-m` names or a script inside `-c`."""
    root = os.path.realpath(cwd)
    out: dict[str, None] = {}
    for server in servers:
        if server.transport != "stdio":
            continue
        base = os.path.join(root, server.cwd) if server.cwd else root
        for word in (server.command or "", *server.args):
            for candidate in (word, word.split("=", 1)[1] if word.startswith("-") and "=" in word else ""):
                if not candidate or "\0" in candidate:
                    continue
                real = os.path.realpath(os.path.join(base, os.path.expanduser(candidate)))
                if real.startswith(root + os.sep) and os.path.isfile(real):
                    out[os.path.relpath(real, root)] = None
    return tuple(out)


def project_trusted(settings: Any, servers: list[ServerConfig], read: Snapshot) -> bool:
    """--trust-project, or `.mcp.json` (judged on the bytes `servers` were parsed from) and every
    repository file its servers run trusted as they are now."""
    if getattr(settings, "trust_project", False):
        return True
    if read.state != "trusted":
        return False
    return all(trust.state(settings.cwd, rel) == "trusted" for rel in program_files(settings.cwd, servers))


def load(settings: Any) -> McpSetup:
    """The servers to run for these settings, and the notices to show (raises ConfigError)."""
    from flue_tui.config.files import Unreadable, user_file

    flags = flag_servers(list(getattr(settings, "mcp_config", []) or []))
    if getattr(settings, "strict_mcp_config", False):
        return McpSetup(tuple(flags))
    chosen: dict[str, ServerConfig] = {}
    held: list[ServerConfig] = []
    notices: list[str] = []
    read: Snapshot | None = None
    roots = workspace_roots(getattr(settings, "sandbox", "local"), settings.cwd, getattr(settings, "add_dirs", []))
    try:
        project, read = project_servers(settings.cwd, roots, notices)
    except ConfigError as exc:  # a cloned repository's bad file must not keep flue from starting
        project = []
        notices.append(f"Ignored {PROJECT_FILE}: {exc}")
    if project and read is not None and project_trusted(settings, project, read):
        chosen.update((s.name.casefold(), s) for s in project)
    elif project:
        held = project
        changed = [PROJECT_FILE] if read is not None and read.state == "changed" else []
        changed += [rel for rel in program_files(settings.cwd, project) if trust.state(settings.cwd, rel) == "changed"]
        why = (
            f"{', '.join(changed)} changed since you trusted this project"
            if changed
            else "you have not trusted this project"
        )
        notices.append(
            f"Not started from {PROJECT_FILE} because {why}: "
            f"{', '.join(s.name for s in project)} (trust it by answering yes when flue asks, "
            "with flue trust, or with --trust-project)."
        )
    # Keyed without case: rules match tool names without case, so a project's `GitHub` must not
    # run beside the user's `github` and borrow its `mcp__github` rule.
    try:
        chosen.update((s.name.casefold(), s) for s in user_servers(user_file()))
    except Unreadable as exc:  # an optional file: one sentence (the same for each of its readers)
        notices.append(str(exc))
    chosen.update((s.name.casefold(), s) for s in flags)
    sha, state = (read.sha256, read.state) if read is not None else (None, "untrusted")
    return McpSetup(tuple(chosen.values()), tuple(notices), tuple(held), sha, state)
