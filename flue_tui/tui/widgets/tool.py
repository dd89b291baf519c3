"""One tool call as one widget: header (tool, key argument, spinner or outcome) and a short body.

Bash shows the live tail of its output while it runs; edit/write show a coloured diff; anything
else shows its result only when expanded. Clicking the header toggles the full result.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.widget import Widget

from flue_tui.ui import toolfmt
from flue_tui.ui.transcript import ToolEntry

TAIL_LINES = 6
TAIL_LINES_EXPANDED = 40
DIFF_LINES = 16
RESULT_LINES_EXPANDED = 400
ERROR_LINES = 4


def _shows_tail(entry: ToolEntry, expanded: bool) -> bool:
    """Whether body_text shows the output's last lines (a running or collapsed command)."""
    if entry.status == "running":
        return True
    return entry.kind == "execute" and not expanded and entry.status != "error"


def body_text(entry: ToolEntry, expanded: bool) -> tuple[Text | None, int]:
    """The body under the header and how many lines it leaves out."""
    if entry.status == "running":
        if entry.tail is None:
            return None, 0
        n = TAIL_LINES_EXPANDED if expanded else TAIL_LINES
        lines = entry.tail.last(n)
        if not lines:
            return None, 0
        return Text("\n".join(lines), style="dim"), max(0, entry.tail.total_lines - len(lines))
    if entry.outcome == "aborted" and entry.tail is not None and not expanded:
        # The header already says "interrupted"; what the command printed so far says more.
        lines = entry.tail.last(TAIL_LINES)
        return (Text("\n".join(lines), style="dim"), 0) if lines else (None, 0)
    if entry.status == "error":
        return toolfmt.plain_lines(entry.result_text, None if expanded else ERROR_LINES, style="red")
    if entry.diff:
        return toolfmt.diff_text(entry.diff, None if expanded else DIFF_LINES)
    if entry.kind == "execute" and not expanded:
        if entry.tail is not None:
            lines = entry.tail.last(TAIL_LINES)
        else:  # a resumed call: no live tail, but its result ends with the output's tail
            lines = [ln for ln in entry.result_text.splitlines() if ln.strip()][-TAIL_LINES:]
        if not lines:
            return None, 0
        total = len(entry.result_text.splitlines())
        return Text("\n".join(lines), style="dim"), max(0, total - len(lines))
    if expanded:
        return toolfmt.plain_lines(entry.result_text, RESULT_LINES_EXPANDED, style="dim")
    return None, 0


class ToolView(Widget):
    """The view of a ToolEntry; `sync()` re-renders it from the entry."""

    DEFAULT_CSS = """
    ToolView { height: auto; }
    """

    def __init__(self, entry: ToolEntry) -> None:
        super().__init__(classes="tool")
        self.entry = entry
        self.frame = 0
        self._lines = 0
        self._body: Text | None = None
        self._hidden = 0
        self._rebuild()

    def _rebuild(self) -> None:
        self._body, self._hidden = body_text(self.entry, self.entry.expanded)
        self.set_class(self.entry.status == "error", "-error")
        self.set_class(self.entry.expanded, "-expanded")

    def render(self) -> Text:
        entry = self.entry
        out = toolfmt.header(entry, self.frame, time.monotonic(), self.size.width or None)
        out.end = ""
        # A tail (bash's last lines) leaves lines out above it, anything else below: say which, there.
        above = _shows_tail(entry, entry.expanded)
        more = ""
        if self._hidden:
            more = f"… {self._hidden} more line{'s' if self._hidden != 1 else ''} {'above' if above else 'below'}"
            more += "" if entry.status == "running" else " (click to expand)"
        if more and above:
            out.append(f"\n    {more}", style="dim italic")
        if self._body is not None and self._body.plain:
            out.append("\n")
            out.append_text(_indent(self._body))
        if more and not above:
            out.append(f"\n    {more}", style="dim italic")
        elif not self._hidden and entry.expanded and entry.status != "running":
            out.append("\n    (click to collapse)", style="dim italic")
        self._lines = out.plain.count("\n") + 1
        return out

    def sync(self) -> None:
        before = self._lines
        self._rebuild()
        # Collapsed blocks never wrap, so an unchanged line count means an unchanged height and
        # the (whole-screen) re-layout can be skipped: a bash tail updating 15 times a second.
        same_height = not self.entry.expanded and before and self._line_count() == before
        self.refresh(layout=not same_height)

    def tick(self) -> None:
        """Advance the spinner and elapsed time; the height does not change, so no re-layout."""
        self.frame += 1
        self.refresh()

    def _line_count(self) -> int:
        n = 1
        if self._body is not None and self._body.plain:
            n += self._body.plain.count("\n") + 1
        if self._hidden or (self.entry.expanded and self.entry.status != "running"):
            n += 1
        return n

    def on_click(self, event: events.Click) -> None:
        if event.y == 0 and self.entry.status != "running":
            event.stop()
            self.entry.expanded = not self.entry.expanded
            self.sync()


def _indent(text: Text, prefix: str = "    ") -> Text:
    out = Text()
    for i, line in enumerate(text.split("\n", allow_blank=True)):
        if i:
            out.append("\n")
        out.append(prefix)
        out.append_text(line)
    return out
