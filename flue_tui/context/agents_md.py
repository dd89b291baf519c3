"""Workspace context discovery: AGENTS.md / CLAUDE.md and the top-level listing (Flue §7.1)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from flue_tui.core.files import SpecialFile, read_regular_text


@dataclass(frozen=True, slots=True)
class WorkspaceContext:
    cwd: str
    instructions: str  # AGENTS.md then CLAUDE.md, each trimmed, joined by a blank line
    listing: tuple[str, ...]  # names only, byte-sorted, dotfiles included
    warnings: tuple[str, ...] = ()  # an instructions file that was refused, one line each


def discover_workspace(cwd: str, roots: tuple[str, ...] | None = None) -> WorkspaceContext:
    """Only the cwd itself: no walking up to a repository root and no global files, like Flue.
    `roots`: the workspace sandbox's, which a linked instructions file must not leave."""
    parts = []
    warnings = []
    for name in ("AGENTS.md", "CLAUDE.md"):
        path = os.path.join(cwd, name)
        try:
            text = read_regular_text(path, roots).strip()  # a FIFO named AGENTS.md must not hang start-up
        except SpecialFile as exc:
            warnings.append(f"[flue] Not reading {path}: {exc}.")
            continue
        except OSError:
            continue
        if text:
            parts.append(text)
    try:
        listing = sorted(os.listdir(os.fsencode(cwd)))  # bytes: Node's order
    except OSError:
        listing = []  # silently omitted, as Flue does when readdir fails
    # Bytes that are not UTF-8 become U+FFFD, as Node's readdir shows them (str names from
    # os.listdir carry surrogate escapes no encoder takes: one such name sank the whole run).
    shown = tuple(name.decode("utf-8", "replace") for name in listing)
    return WorkspaceContext(cwd=cwd, instructions="\n\n".join(parts), listing=shown, warnings=tuple(warnings))
