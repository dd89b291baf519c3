"""System prompt composition (the full Flue composition arrives with context discovery)."""

from __future__ import annotations

import datetime as _dt

PREAMBLE = """You are flue, a coding agent working in the user's repository from a terminal.
Use the tools to read, search, edit and run code; check your work by running it.
Prefer small, precise edits over rewrites. Keep answers short and concrete."""


def flue_date(today: _dt.date | None = None) -> str:
    """Flue's date format: `Tue, Aug 4, 2026` (no zero padding)."""
    d = today or _dt.date.today()
    return f"{d.strftime('%a')}, {d.strftime('%b')} {d.day}, {d.year}"


def compose_system_prompt(cwd: str, instructions: str = PREAMBLE) -> str:
    return f"{instructions}\n\nDate: {flue_date()}\nWorking directory: {cwd}"
