"""Fitting a status line to the terminal's width by priority, for the app's bar and inline's toolbar.

Cutting the joined text at the right edge drops whatever comes last, which in both lines is what
matters most (the permission mode, the activity). Instead each part has a priority and the least
important parts go first, whole; only what is left over is cut (with an ellipsis) by the caller.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

SEP = " · "


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the status line, and how it gives way when the line is too narrow."""

    text: str
    keep: int  # higher stays longer: the lowest is dropped first
    style: str = ""
    sep: str = SEP  # what goes before it when something precedes it
    shrink_to: int = 0  # may be cut from the left (`…tail`, a path) down to this many characters
    side: str = ""  # which of the caller's places it goes to (the app's bar has a left and a right)


def width_of(parts: list[Part]) -> int:
    return sum(len(p.text) + (len(p.sep) if i else 0) for i, p in enumerate(parts))


def _shrunk(parts: list[Part], room: int) -> list[Part] | None:
    """`parts` with the shrinkable ones cut from the left just enough to fit, or None if they cannot."""
    over = width_of(parts) - room
    out = []
    for p in parts:
        spare = max(len(p.text) - max(p.shrink_to, 1), 0) if p.shrink_to else 0
        cut = min(spare, over + 1) if over > 0 and spare else 0  # +1: room for the ellipsis
        if cut:
            p = dataclasses.replace(p, text="…" + p.text[cut + 1 :] if cut + 1 < len(p.text) else "…")
            over -= cut
        out.append(p)
    return out if width_of(out) <= room else None


def fit(parts: list[Part], width: int, *, reserved: int = 0) -> list[Part]:
    """`parts` fitted to `width` minus `reserved` (columns taken by something else on the line):
    shrinkable parts (paths) are cut first, then the least important parts dropped, order kept.
    Nothing changes when `width` is unknown (0 or less); what still does not fit is the caller's
    to elide."""
    kept = [p for p in parts if p.text]
    if width <= 0:
        return kept
    room = width - reserved
    while width_of(kept) > room:
        shrunk = _shrunk(kept, room)
        if shrunk is not None:
            return shrunk
        keeps = sorted({p.keep for p in kept})
        if len(keeps) == 1:
            break  # only the most important are left
        kept = [p for p in kept if p.keep != keeps[0]]
    return kept


def joined(parts: list[Part]) -> str:
    return "".join((p.sep if i else "") + p.text for i, p in enumerate(parts))
