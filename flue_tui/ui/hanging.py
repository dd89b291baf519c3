"""Notices that list things in two columns (`/skills`, `/help`: a name, then what it does) wrap a
long description under its own column, not back at the margin, in the app and inline alike."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

# An indented line whose first column ends at a gap of two or more spaces, or an indented `label: `
# (`/mcp`'s `    tools: a, b, …`): the second column starts there.
COLUMN = re.compile(r"^(\s+\S.*?\s{2,}|\s+[^\s:]+:\s)(?=\S)")


def hang(line: str, width: int) -> int:
    """How far a wrapped continuation of `line` is indented at `width` (0: at the margin)."""
    m = COLUMN.match(line)
    if m is None or "\t" in m.group(1):
        return 0
    indent = cell_len(m.group(1))
    return indent if indent <= width // 2 else 0  # a narrow screen: room for the text comes first


class Hanging:
    """`text` with each two-column line wrapped under its second column."""

    def __init__(self, text: str, style: str = "") -> None:
        self.text = text
        self.style = style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width)
        out: list[Text] = []
        for line in self.text.split("\n"):
            indent = hang(line, width) if cell_len(line) > width else 0
            if not indent:
                out.append(Text(line))
                continue
            head = line[: len(COLUMN.match(line).group(1))]  # type: ignore[union-attr]  # hang() matched
            pieces = Text(line[len(head) :]).wrap(console, width - indent)
            for i, piece in enumerate(pieces):
                out.append(Text(head if i == 0 else " " * indent) + piece)
        yield Text("\n", style=self.style).join(out)
