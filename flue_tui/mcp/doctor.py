"""`flue doctor`'s MCP lines: each configured server started, its tools listed, within a timeout."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

DOCTOR_TIMEOUT = 20.0  # seconds per server, at most


async def _check_all(servers: list[Any], cwd: str) -> list[tuple[str, str, str]]:
    from flue_tui.mcp.connection import Connection

    conns = [
        Connection(dataclasses.replace(s, startup_timeout=min(s.startup_timeout, DOCTOR_TIMEOUT)), cwd, lambda c: None)
        for s in servers
    ]
    for conn in conns:
        conn.start()
    await asyncio.gather(*(c.wait_ready(c.config.startup_timeout + 5) for c in conns))
    out = []
    for conn in conns:
        cfg = conn.config
        if conn.status == "connected":
            names = ", ".join(str(t.name) for t in conn.tools[:8]) + (" …" if len(conn.tools) > 8 else "")
            out.append(("ok", f"{cfg.name}: {len(conn.tools)} tools ({names}) via {cfg.describe()}", ""))
        else:
            out.append(
                (
                    "fail",
                    f"{cfg.name} ({cfg.describe()}): {conn.error or conn.status}",
                    f"check the command or URL in {cfg.source}",
                )
            )
    await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)
    return out


def checks(settings: Any) -> list[tuple[str, str, str]]:
    """(status, detail, fix) per server, plus the project's servers waiting for trust."""
    from flue_tui.config.errors import ConfigError
    from flue_tui.mcp.config import PROJECT_FILE, load

    try:
        setup = load(settings)
    except ConfigError as exc:
        return [("fail", str(exc), "edit the file it names")]
    out = []
    if setup.held:
        out.append(
            (
                "warn",
                f"{PROJECT_FILE} servers not started until you trust this project: "
                f"{', '.join(s.name for s in setup.held)}",
                "flue trust, or run flue here and answer yes",
            )
        )
    if not setup.servers:
        return out or [("ok", "no MCP servers configured", "")]
    return out + asyncio.run(_check_all(list(setup.servers), settings.cwd))
