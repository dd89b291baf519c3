"""Fitting a status line to the terminal's width by priority, for the app's bar and inline's toolbar.

Cutting the joined text at the right edge drops whatever comes last, which in both lines is what
matters most (the permission mode, the activity). Instead each part has a priority and the least
important parts go first, whole; only what is left over is cut (with an ellipsis) by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

SEP = " · "


@dataclass(frozen=True, slots=True)
class Part:
    text: str
    keep: int  # higher stays longer: the lowest is dropped first
    style: str = ""
    sep: str = SEP  # what goes before it when something precedes it


def width_of(parts: list[Part]) -> int:
    return sum(len(p.text) + (len(p.sep) if i else 0) for i, p in enumerate(parts))


def fit(parts: list[Part], width: int, *, reserved: int = 0) -> list[Part]:
    """`parts` without their least important members until they fit `width` minus `reserved`
    (columns taken by something else on the line); order is kept, nothing is dropped when
    `width` is unknown (0 or less)."""
    kept = [p for p in parts if p.text]
    if width <= 0:
        return kept
    room = width - reserved
    for drop in sorted({p.keep for p in kept}):
        if width_of(kept) <= room:
            break
        if len({p.keep for p in kept}) == 1:
            break  # only the most important are left: the caller elides what does not fit
        kept = [p for p in kept if p.keep != drop]
    return kept


def joined(parts: list[Part]) -> str:
    return "".join((p.sep if i else "") + p.text for i, p in enumerate(parts))
