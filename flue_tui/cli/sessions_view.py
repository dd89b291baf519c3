"""Rendering for `flue sessions`. `list` and `search` write aligned text themselves: importing rich
would cost more than the whole budget of `flue sessions list` (docs/benchmarks.md). `show`
renders the transcript with rich (Markdown, nesting), where that cost is fine."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TextIO

from flue_tui.store.transcript import MARK_END, MARK_START
from flue_tui.store.values import SearchHit, SessionInfo, local_time
from flue_tui.ui.termsafe import terminal_safe

_CODES = {"bold": "1", "dim": "2", "cyan": "36", "yellow": "33", "match": "1;33"}
Style = Callable[[str, str], str]


def styler(out: TextIO) -> Style:
    if out.isatty() and not os.environ.get("NO_COLOR"):
        return lambda text, style: f"\x1b[{_CODES[style]}m{text}\x1b[0m" if text else text
    return lambda text, style: text


def _width(out: TextIO) -> int | None:
    """The terminal's width, or None when piped (then nothing is cut)."""
    if not out.isatty():
        return None
    try:
        return os.get_terminal_size(out.fileno()).columns  # not shutil's: it imports bz2, lzma, zlib
    except (OSError, ValueError):
        return 120


def _home(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if home != "/" and (path == home or path.startswith(home + os.sep)) else path


def _cut(text: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def _safe_info(info: SessionInfo) -> SessionInfo:
    return dataclasses.replace(
        info,
        id=terminal_safe(info.id),
        cwd=terminal_safe(info.cwd),
        name=terminal_safe(info.name) if info.name else info.name,
        title=terminal_safe(info.title) if info.title else info.title,
    )


def _safe_hit(hit: SearchHit) -> SearchHit:
    fields = ("session_id", "session_label", "root_label", "cwd", "role")  # the snippet: after its marks are split
    return dataclasses.replace(hit, **{f: terminal_safe(v) for f in fields if isinstance(v := getattr(hit, f), str)})


def render_list(infos: list[SessionInfo], out: TextIO, *, all_dirs: bool | str, total: int, cwd: str) -> None:
    """`all_dirs`: "all" (--all) or True (this directory and its worktree sessions') adds the
    DIRECTORY column."""
    style, width = styler(out), _width(out)
    if not infos:
        where = "any directory" if all_dirs else cwd
        hint = "" if all_dirs else " (flue sessions list --all shows every directory)"
        out.write(f"No sessions in {where} yet{hint}.\n")
        return
    # Stored strings may come from an imported file: shown, never obeyed by the terminal.
    infos = [_safe_info(i) for i in infos]
    # Every directory (--all) from home; this one's and its worktree sessions' relative to it.
    dirs = [_cut(_home(i.cwd) if all_dirs == "all" else os.path.relpath(i.cwd, cwd), 40) for i in infos]
    dir_w = max([len("DIRECTORY"), *map(len, dirs)]) if all_dirs else 0
    id_w = max(len(i.id) for i in infos)
    head = f"{'UPDATED':<16}  {'MSGS':>5}  {'ID':<{id_w}}  " + (f"{'DIRECTORY':<{dir_w}}  " if all_dirs else "")
    out.write(style(head + "SESSION", "dim") + "\n")
    for n, info in enumerate(infos):
        lead = f"{local_time(info.updated_at):<16}  {info.message_count:>5}  {info.id:<{id_w}}  "
        if all_dirs:
            lead += f"{dirs[n]:<{dir_w}}  "
        room = None if width is None else max(width - len(lead), 10)
        if info.name:
            name = _cut(info.name, room)
            rest = _cut("  " + info.title, None if room is None else room - len(name)) if info.title else ""
            label = style(name, "bold") + style(rest, "dim")
        else:
            label = _cut(info.title or "(untitled)", room)
        out.write(style(lead, "dim") + label + "\n")
    if total > len(infos):
        out.write(style(f"… {total - len(infos)} older not shown (--limit 0 shows all)", "dim") + "\n")


def list_json(infos: list[SessionInfo], totals: dict[str, tuple[int, int, int, int, float]] | None = None) -> str:
    """Each session's own columns, plus `total`: its tokens and cost with its task children's."""
    rows = []
    for info in infos:
        row = info.to_dict()
        if totals is not None and info.id in totals:
            keys = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd")
            row["total"] = dict(zip(keys, totals[info.id], strict=True))
        rows.append(row)
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def render_search(hits: list[SearchHit], out: TextIO, *, query: str) -> None:
    style, width = styler(out), _width(out)
    if not hits:
        out.write(f"No messages match {query!r}.\n")
        return
    last = None
    for hit in map(_safe_hit, hits):
        if hit.session_id != last:
            last = hit.session_id
            where = f"task in {hit.root_label} · " if hit.root_label else ""
            out.write(
                style(hit.session_label, "bold")
                + style(f"  {where}{local_time(hit.created_at)} · {_home(hit.cwd)} · {hit.session_id}", "dim")
                + "\n"
            )
        snippet = _cut(hit.snippet, None if width is None else width - 14)
        parts = snippet.replace(MARK_END, MARK_START).split(MARK_START)  # odd parts are the matches
        parts = [terminal_safe(p) for p in parts]
        text = "".join(style(p, "match") if i % 2 else p for i, p in enumerate(parts))
        out.write(f"  {style(f'#{hit.seq} {hit.role}:', 'dim')} {text}\n")


def search_json(hits: list[SearchHit]) -> str:
    rows: list[dict[str, Any]] = []
    for h in hits:
        row = asdict(h)
        row["snippet"] = h.snippet.replace(MARK_START, "").replace(MARK_END, "")
        rows.append(row)
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
