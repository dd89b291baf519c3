"""Streaming Markdown by block, for output that is written once and never redrawn.

A reply is cut at block boundaries (a blank line, outside a code fence, followed by a line that
starts a new top-level block). Whole blocks are printed for good; only the unfinished last block
is shown in the live area. Rendering stays O(block) per update however long the reply grows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def complete_prefix(text: str) -> int:
    """How many leading characters of `text` form whole blocks (0 when none is finished yet)."""
    cut = 0
    pos = 0
    fence: str | None = None
    blank = False  # a blank line seen since the last content line
    content = False  # some content before the candidate boundary
    for line in text.split("\n"):
        # The last piece has no newline yet: it only counts for "does a new block start here?".
        stripped = line.strip()
        if fence is not None:
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence = None
        elif not stripped:
            blank = content
        else:
            # An indented line after a blank may continue a list item or be indented code.
            if blank and not line[0].isspace():
                cut = pos
            blank = False
            content = True
            m = FENCE_RE.match(line)
            if m:
                fence = m.group(1)
        pos += len(line) + 1
    return cut


class Trimmed:
    """A renderable without trailing padding, so copied lines carry no run of spaces (rich pads
    Markdown paragraphs to the full width); backgrounds, as in code blocks, are kept."""

    def __init__(self, renderable: RenderableType, max_lines: int | None = None) -> None:
        self.renderable = renderable
        self.max_lines = max_lines  # keep only the last lines (the live tail of a long block)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options.update(height=None), pad=False)
        if self.max_lines is not None and len(lines) > self.max_lines:
            lines = lines[-self.max_lines :]
        # rich starts and ends some blocks (lists) with an empty line; spacing is ours to decide.
        while lines and _empty(lines[-1]):
            lines.pop()
        while lines and _empty(lines[0]):
            lines.pop(0)
        for line in lines:
            yield from _rstrip(line)
            yield Segment.line()


def _empty(line: list[Segment]) -> bool:
    return not any(seg.text.strip() or (seg.style and seg.style.bgcolor) for seg in line)


def _rstrip(line: list[Segment]) -> Iterable[Segment]:
    end = len(line)
    while end:
        seg = line[end - 1]
        if seg.control or (seg.style and seg.style.bgcolor) or seg.text.strip():
            break
        end -= 1
    if end and not line[end - 1].control:
        last = line[end - 1]
        keep = last.text.rstrip() if not (last.style and last.style.bgcolor) else last.text
        return [*line[: end - 1], Segment(keep, last.style)]
    return line[:end]


class Indented:
    """A renderable nested under a task: each line behind `prefix` (`  │ `), dimmed, at most
    `max_lines` of it with a note of how many more there were."""

    def __init__(self, renderable: RenderableType, prefix: str, max_lines: int | None = None) -> None:
        self.renderable = renderable
        self.prefix = prefix
        self.max_lines = max_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(10, options.max_width - len(self.prefix))
        lines = console.render_lines(Trimmed(self.renderable), options.update(width=width, height=None), pad=False)
        hidden = 0
        if self.max_lines is not None and len(lines) > self.max_lines:
            hidden, lines = len(lines) - self.max_lines, lines[: self.max_lines]
        for line in lines:
            yield Segment(self.prefix, DIM)
            yield from Segment.apply_style(line, post_style=DIM)
            yield Segment.line()
        if hidden:
            yield Segment(f"{self.prefix}… {hidden} more lines", DIM)
            yield Segment.line()


DIM = Style(dim=True)
