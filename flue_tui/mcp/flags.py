"""What `--mcp-config` and `--strict-mcp-config` (Claude Code's flags) give; defined in cli/flags.py."""

from __future__ import annotations

import argparse
from typing import Any


def mcp_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {"mcp_config": list(args.mcp_config) or None, "strict_mcp_config": True if args.strict_mcp_config else None}
