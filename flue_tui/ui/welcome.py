"""What a fresh session greets with, worded once for the app and inline mode.

A few lines (≤ 6 at 80 columns): where flue works, with which model, mode and sandbox, the keys a
Claude Code user reaches for first, and `/init` when the workspace has no AGENTS.md to read. It is
an ordinary entry at the top of the conversation, so it scrolls away once the work starts. A
resumed session is not greeted: its history is what the user wants to see.
"""

from __future__ import annotations

import os

from flue_tui.ui.termsafe import terminal_safe

INIT_HINT = "Run /init to create an AGENTS.md for this repository"


def home_short(path: str, limit: int = 40) -> str:
    """`path` with the home directory as `~`, cut from the left to `limit` characters."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home) :]
    if len(path) > limit:
        path = "…" + path[-(limit - 1) :]
    return path


def has_agents_md(cwd: str) -> bool:
    # The file flue reads as the project's instructions (context/agents_md.py); CLAUDE.md counts too.
    return any(os.path.isfile(os.path.join(cwd, name)) for name in ("AGENTS.md", "CLAUDE.md"))


def welcome_text(
    *, cwd: str, model: str, mode: str | None, sandbox: str, interrupt_key: str = "Esc", agents_md: bool | None = None
) -> str:
    """The greeting as plain lines (each fits 80 columns with a two-column indent). `mode` None:
    not read yet (the app greets before its config is), so it is left out rather than guessed."""
    # A directory or model name is the user's, but a cloned repository's path may hold anything.
    said_mode = "" if mode is None else f" · {mode or 'ask'} mode"
    lines = [
        f"✻ Welcome to flue · {terminal_safe(home_short(cwd, 52))}",
        f"  {terminal_safe(model) or 'no model'}{said_mode} · {sandbox} sandbox",
        f"  /help · @file attaches · !cmd runs · {interrupt_key} interrupts · Shift+Tab: mode",
    ]
    if not (has_agents_md(cwd) if agents_md is None else agents_md):
        lines.append(f"  {INIT_HINT}")
    return "\n".join(lines)
