"""`--mcp-config` and `--strict-mcp-config` (Claude Code's flags). argparse only."""

from __future__ import annotations

import argparse
from typing import Any


def add_mcp_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("MCP servers")
    group.add_argument(
        "--mcp-config",
        action="append",
        metavar="FILE|JSON",
        default=[],
        help='MCP servers from a file or inline JSON in .mcp.json\'s format ({"mcpServers": {...}}); repeatable',
    )
    group.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the --mcp-config servers, ignoring config.toml and .mcp.json",
    )


def mcp_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {"mcp_config": list(args.mcp_config) or None, "strict_mcp_config": True if args.strict_mcp_config else None}
