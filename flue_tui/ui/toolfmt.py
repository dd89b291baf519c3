"""How a tool call reads on screen: its key argument, a short result summary, a coloured diff.

Pure functions over a ToolEntry returning rich Text; the widget only lays them out. Tools put UI
data in their typed details (core/details.py: lines, diff, exit code, matches), read through
`ToolEntry.info`, and how a call ended is its typed outcome (core/traits.py), so nothing here parses
model text or digs in dicts.
"""

from __future__ import annotations

import re

from rich.text import Text

from flue_tui.core.termsafe import visible
from flue_tui.core.toolcall import call_summary, one_line
from flue_tui.core.traits import OUTCOME_WORDS
from flue_tui.ui.transcript import ToolEntry

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def key_argument(entry: ToolEntry) -> str:
    """The entry's call as every surface names it (core/toolcall.py), every byte of it shown: a
    command can hide `; touch x` inside an escape sequence a terminal (or Rich) would swallow."""
    return visible(call_summary(entry.name, entry.args, entry.cwd))


def diff_counts(diff: str) -> tuple[int, int]:
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def seconds(ms: int | float) -> str:
    s = ms / 1000
    if s < 60:
        return f"{s:.1f}s"
    return f"{int(s // 60)}m{int(s % 60):02d}s"


def denied(entry: ToolEntry) -> bool:
    """Refused by the permission policy, the workspace guard or the user: the tool never ran."""
    return entry.outcome == "denied"


def summary(entry: ToolEntry) -> str:
    """A few words on the outcome: lines read, +/- lines, exit code, matches."""
    if entry.status == "error":
        return OUTCOME_WORDS[entry.outcome or "error"]
    from flue_tui.core.details import BashDetails, MatchDetails, ReadDetails  # not before the first frame

    info = entry.info
    if isinstance(info, ReadDetails) and info.lines is not None:
        # What was read, of how many: `160 of 229 lines`; a whole file reads as its length.
        return f"{info.lines} lines" if info.shown is None else f"{info.shown} of {info.lines} lines"
    if entry.kind == "edit":
        if entry.diff:
            added, removed = diff_counts(entry.diff)
            return f"+{added} −{removed}"
        return one_line(entry.result_text, 80)
    if isinstance(info, BashDetails):
        return f"exit {info.exit_code}" if info.exit_code is not None else ""
    if isinstance(info, MatchDetails):
        n, noun = info.match_count, info.noun
        return f"{n} {noun}{'' if n == 1 else ('es' if noun == 'match' else 's')}"
    return ""


def exit_code(entry: ToolEntry) -> int | None:
    """A bash call's exit code, else None."""
    from flue_tui.core.details import BashDetails  # not before the first frame

    info = entry.info
    return info.exit_code if isinstance(info, BashDetails) else None


def header(entry: ToolEntry, frame: int, now: float, width: int | None = None) -> Text:
    """`✓ name  key-argument  outcome · time`; the argument is shortened first, so the outcome and
    the elapsed time stay visible on a narrow screen."""
    running = entry.status == "running"
    if running:
        icon, icon_style = SPINNER[frame % len(SPINNER)], "bold cyan"
    elif entry.status == "ok":
        icon, icon_style = "✓", "bold green"
    else:
        icon, icon_style = "✗", "bold red"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{icon} ", style=icon_style)
    text.append(entry.name, style="bold")
    tail: list[tuple[str, str]] = []
    if running and entry.waiting:
        tail.append(("waiting for approval", "yellow"))
    elif running:
        tail.append((seconds((now - entry.started) * 1000), "dim"))
    else:
        words = summary(entry)
        if words:
            code = exit_code(entry)
            style = "red" if entry.status == "error" else ("yellow" if code not in (None, 0) else "dim")
            tail.append((words, style))
        if (
            entry.duration_ms is not None
            and not denied(entry)
            and (entry.duration_ms >= 2000 or entry.kind in ("execute", "delegate"))
        ):
            tail.append((seconds(entry.duration_ms), "dim"))
    after = Text()
    for i, (words, style) in enumerate(tail):
        after.append("  " if i == 0 else " · ", style="dim")
        after.append(words, style=style)
    arg = key_argument(entry)
    if arg:
        room = None if width is None else width - text.cell_len - after.cell_len - 2
        if room is not None and len(arg) > room:
            arg = arg[: max(0, room - 1)] + "…" if room > 1 else ""
        if arg:
            text.append("  ")
            text.append(arg)
    text.append_text(after)
    return text


def diff_text(diff: str, limit: int | None) -> tuple[Text, int]:
    """Coloured unified diff with new-file line numbers; returns (text, lines left out)."""
    out = Text()
    old = new = 0
    shown = 0
    body = [ln for ln in diff.splitlines() if not ln.startswith(("---", "+++"))]
    for line in body:
        if limit is not None and shown >= limit:
            break
        m = HUNK_RE.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(2))
            if shown:
                out.append("   ⋮\n", style="dim")
                shown += 1
            continue
        if line.startswith("+"):
            out.append(f"{new:>5} ", style="dim")
            out.append(f"+{line[1:]}\n", style="green")
            new += 1
        elif line.startswith("-"):
            out.append(f"{old:>5} ", style="dim")
            out.append(f"-{line[1:]}\n", style="red")
            old += 1
        else:
            out.append(f"{new:>5} ", style="dim")
            out.append(f" {line[1:]}\n", style="dim")
            old += 1
            new += 1
        shown += 1
    out.rstrip()
    total = sum(1 for ln in body if not HUNK_RE.match(ln))
    lines_shown = sum(1 for ln in out.plain.splitlines() if ln.strip() != "⋮")
    hidden = max(0, total - lines_shown)
    return out, hidden


def plain_lines(text: str, limit: int | None, style: str = "") -> tuple[Text, int]:
    lines = text.splitlines()
    shown = lines if limit is None else lines[:limit]
    out = Text("\n".join(shown), style=style)
    return out, len(lines) - len(shown)
