"""Workspace context discovery: AGENTS.md / CLAUDE.md and the top-level listing (Flue §7.1)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from flue_tui.core.files import read_regular_text


@dataclass(frozen=True, slots=True)
class WorkspaceContext:
    cwd: str
    instructions: str  # AGENTS.md then CLAUDE.md, each trimmed, joined by a blank line
    listing: tuple[str, ...]  # names only, byte-sorted, dotfiles included


def discover_workspace(cwd: str) -> WorkspaceContext:
    """Only the cwd itself: no walking up to a repository root and no global files, like Flue."""
    parts = []
    for name in ("AGENTS.md", "CLAUDE.md"):
        path = os.path.join(cwd, name)
        try:
            text = read_regular_text(path).strip()  # a FIFO named AGENTS.md must not hang start-up
        except OSError:
            continue
        if text:
            parts.append(text)
    try:
        listing = tuple(sorted(os.listdir(cwd), key=lambda n: n.encode()))
    except OSError:
        listing = ()  # silently omitted, as Flue does when readdir fails
    return WorkspaceContext(cwd=cwd, instructions="\n\n".join(parts), listing=listing)
