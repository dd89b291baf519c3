"""`/mcp` in the app and inline mode: the servers, their status and tools; `/mcp restart NAME`."""

from __future__ import annotations

from flue_tui.mcp.manager import manager

USAGE = "Usage: /mcp (list servers and tools) or /mcp restart NAME."


def listing() -> str:
    statuses = manager().statuses()
    if not statuses:
        return (
            "No MCP servers configured. Add one with `flue mcp add NAME -- command args`, in .mcp.json, "
            "or with --mcp-config."
        )
    lines = ["MCP servers:"]
    for s in statuses:
        lines.append(f"  {s.name}  {s.status}  ({s.transport}: {s.target})")
        if s.error:
            lines.append(f"    error: {s.error}")
        if s.tools:
            lines.append("    tools: " + ", ".join(s.tools))
    return "\n".join(lines)


async def run(arg: str) -> tuple[str, str]:
    """(text, level) for `/mcp arg`."""
    words = arg.split()
    if not words or words == ["list"]:
        return listing(), "info"
    if words[0] == "restart" and len(words) == 2:
        text = await manager().restart(words[1])
        return text, "info" if text.endswith("connected") else "warn"
    return USAGE, "error"
