"""Workspace context discovery: AGENTS.md / CLAUDE.md and the top-level listing (Flue §7.1), and
Claude Code's memory files: the user's `~/.claude/CLAUDE.md` first (general, so the project's
words come after it and win), the project's `.claude/CLAUDE.md` after its CLAUDE.md."""

from __future__ import annotations

import os
from dataclasses import dataclass

from flue_tui.core.files import SpecialFile, read_regular_text


@dataclass(frozen=True, slots=True)
class WorkspaceContext:
    """What the system prompt says of the workspace: its instructions files and its listing."""

    cwd: str
    instructions: str  # ~/.claude/CLAUDE.md, AGENTS.md, CLAUDE.md, .claude/CLAUDE.md, trimmed, blank-line joined
    listing: tuple[str, ...]  # names only, byte-sorted, dotfiles included
    warnings: tuple[str, ...] = ()  # an instructions file that was refused, one line each


def discover_workspace(
    cwd: str, roots: tuple[str, ...] | None = None, user_memory: str | None = None, *, project: bool = True
) -> WorkspaceContext:
    """Only the cwd itself: no walking up to a repository root, like Flue; the one global file is
    `user_memory` (Claude Code's ~/.claude/CLAUDE.md), the user's own, read wherever it is.
    `roots`: the workspace sandbox's, which a linked instructions file must not leave."""
    parts = []
    warnings = []
    # `project=False`: no project memory (--setting-sources without project); the listing stays.
    names = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md") if project else ()
    files = [(os.path.join(cwd, n), roots) for n in names]
    if user_memory is not None:
        files.insert(0, (user_memory, None))
    for path, within in files:
        try:
            text = read_regular_text(path, within).strip()  # a FIFO named AGENTS.md must not hang start-up
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
