"""`flue mcp list|get|add|remove`: the user's config.toml (`--scope user`, the default) or the
project's .mcp.json (`--scope project`), like `claude mcp`:

    flue mcp add NAME -- command args...        flue mcp add --transport http NAME URL
    flue mcp add -e KEY=value -H "Name: value" ...

config.toml is edited as text (the server's own `[mcp_servers.NAME]` table is appended or cut out),
so the user's comments and layout elsewhere survive; .mcp.json is rewritten as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.core.files import read_own
from flue_tui.mcp.config import NAME, NAME_RULE, PROJECT_FILE, parse_server, project_path, project_servers, user_servers


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flue mcp", description="Configure MCP servers.")
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="the configured servers")
    get = sub.add_parser("get", help="one server's settings")
    get.add_argument("name")
    add = sub.add_parser("add", help="add a server: NAME -- command args, or --transport http NAME URL")
    add.add_argument("-s", "--scope", choices=("user", "project"), default="user")
    add.add_argument("-t", "--transport", choices=("stdio", "http", "sse"), default="stdio")
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=value")
    add.add_argument("-H", "--header", action="append", default=[], metavar="'Name: value'")
    add.add_argument("name")
    add.add_argument("target", nargs="*", help="command and args (after --), or the URL")
    remove = sub.add_parser("remove", help="remove a server")
    remove.add_argument("-s", "--scope", choices=("user", "project"), default=None)
    remove.add_argument("name")
    return parser


def _user_file() -> Path:
    from flue_tui.config.files import user_file

    return user_file()


def _toml_str(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def _toml_table(name: str, entry: dict[str, Any]) -> str:
    lines = [f"[mcp_servers.{name}]"]
    for key, value in entry.items():
        if isinstance(value, str):
            lines.append(f"{key} = {_toml_str(value)}")
        elif isinstance(value, list):
            lines.append(f"{key} = [{', '.join(_toml_str(v) for v in value)}]")
        elif isinstance(value, dict):
            lines.append(f"{key} = {{ {', '.join(f'{_toml_str(k)} = {_toml_str(v)}' for k, v in value.items())} }}")
    return "\n".join(lines) + "\n"


def _cut_table(text: str, name: str) -> tuple[str, bool]:
    """Remove `[mcp_servers.NAME]` and its sub-tables from the TOML text."""
    header = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(\"?)" + re.escape(name) + r"\1\s*(\.[^\]]*)?\]\s*(#.*)?$")
    out, skipping, found = [], False, False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("["):
            skipping = bool(header.match(line))
            found = found or skipping
        if not skipping:
            out.append(line)
    return "".join(out), found


def _entry(args: argparse.Namespace) -> dict[str, Any]:
    target = list(args.target)
    if not target:
        raise ConfigError("flue mcp add needs a command (NAME -- command args) or a URL (--transport http NAME URL)")
    entry: dict[str, Any]
    if args.transport == "stdio":
        entry = {"command": target[0], "args": target[1:]}
        if args.env:
            entry["env"] = dict(_pair(e, "=", "--env") for e in args.env)
    else:
        if len(target) != 1:
            raise ConfigError(f"--transport {args.transport} takes one URL, not {' '.join(target)}")
        entry = {"type": args.transport, "url": target[0]}
        if args.header:
            entry["headers"] = dict(_pair(h, ":", "--header") for h in args.header)
    return entry


def _pair(text: str, sep: str, flag: str) -> tuple[str, str]:
    key, found, value = text.partition(sep)
    if not found or not key.strip():
        raise ConfigError(f"{flag} {text!r} must look like KEY{sep}value")
    return key.strip(), value.strip()


def _add(args: argparse.Namespace) -> str:
    if not re.match(NAME, args.name):
        raise ConfigError(f"Server name {args.name!r} {NAME_RULE}")
    entry = _entry(args)
    if args.scope == "project":
        path = project_path(os.getcwd())
        parse_server(args.name, entry, str(path), prefix="mcpServers.")  # checks it before writing
        data = _project_json(path) if path.exists() else {}
        if not isinstance(data, dict) or not isinstance(data.setdefault("mcpServers", {}), dict):
            raise ConfigError(f'{path}: expected an object with "mcpServers"')
        if args.name in data["mcpServers"]:
            raise ConfigError(f"{path} already has a server named {args.name}; remove it first")
        data["mcpServers"][args.name] = entry
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        return f"Added {args.name} to {path} (others get it once they trust this project)."
    path = _user_file()
    parse_server(args.name, entry, str(path), prefix="mcp_servers.")
    if any(s.name == args.name for s in user_servers(path)):
        raise ConfigError(f"{path} already has a server named {args.name}; remove it first")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + ("\n" if text else "") + _toml_table(args.name, entry), encoding="utf-8")
    user_servers(path)  # the file still parses
    return f"Added {args.name} to {path}."


def _project_json(path: Path) -> Any:
    """The project's .mcp.json, read as every repository file flue reads: one bounded open."""
    try:
        return json.loads(read_own(str(path)).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"Cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _remove(args: argparse.Namespace) -> str:
    done = []
    if args.scope in (None, "user"):
        path = _user_file()
        if path.exists():
            text, found = _cut_table(path.read_text(encoding="utf-8"), args.name)
            if found:
                path.write_text(text, encoding="utf-8")
                done.append(str(path))
    if args.scope in (None, "project"):
        path = project_path(os.getcwd())
        if path.exists():
            data = _project_json(path)
            if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict) and args.name in data["mcpServers"]:
                del data["mcpServers"][args.name]
                path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
                done.append(str(path))
    if not done:
        raise ConfigError(f"No MCP server named {args.name} in your config.toml or this project's {PROJECT_FILE}")
    return f"Removed {args.name} from {' and '.join(done)}."


def _all() -> list[tuple[str, Any]]:
    from flue_tui.config.settings import Settings
    from flue_tui.mcp.config import project_trusted

    cwd = os.getcwd()
    project, read = project_servers(cwd)
    trusted = project_trusted(Settings(cwd=cwd), project, read)  # judged on the bytes listed
    out = [("user", s) for s in user_servers(_user_file())]
    out += [("project" if trusted else "project, not trusted", s) for s in project]
    return out


def main(argv: list[str]) -> int:
    rest: list[str] = []
    if "--" in argv:  # everything after `--` is the server's command line, dashes and all
        at = argv.index("--")
        argv, rest = argv[:at], argv[at + 1 :]
    args = _parser().parse_args(argv)
    if rest:
        args.target = [*getattr(args, "target", []), *rest]
    try:
        if args.action == "add":
            print(_add(args))
        elif args.action == "remove":
            print(_remove(args))
        elif args.action == "list":
            servers = _all()
            if not servers:
                print("No MCP servers configured. Add one with: flue mcp add NAME -- command args")
            for scope, s in servers:
                print(f"{s.name}  ({scope})  {s.describe()}")
        else:
            found = [(scope, s) for scope, s in _all() if s.name == args.name]
            if not found:
                raise ConfigError(f"No MCP server named {args.name}")
            for scope, s in found:
                print(f"{s.name}\n  scope: {scope} ({s.source})\n  transport: {s.transport}\n  {s.describe()}")
                for key, _ in s.env:
                    print(f"  env: {key}=…")
                for key, _ in s.headers:
                    print(f"  header: {key}: …")
    except (ConfigError, OSError, ValueError) as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 2
    return 0
