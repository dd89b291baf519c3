"""The Markdown half of a reply's view (tui/widgets/reply.py): the frozen segments and the live
Markdown. Apart from reply.py because importing it is the Markdown stack (rich.markdown,
markdown-it, pygments, Textual's Markdown), too much CPU for the first frame: the app imports it in a thread
(views.warm), and a reply streaming before it is loaded shows its text plain meanwhile."""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from flue_tui.tui.widgets.settled import Settled, settled
from flue_tui.ui.mdtext import task_boxes


class FrozenMarkdown(Settled, Widget):
    """Finished Markdown segments as one widget, each rendered once per width and kept as strips.

    A Static holding rich Markdown would re-render the whole text for every layout (to learn its
    height), and a long reply is laid out on every flush; this renders again only on a resize, and
    a segment frozen later renders only itself. One widget for all of them: a widget per segment
    made every layout of a long reply dearer the longer it grew. Segments are a blank line apart,
    as the separate widgets' top margin spaced them.
    """

    DEFAULT_CSS = "FrozenMarkdown { height: auto; }"

    def __init__(self, *segments: str) -> None:
        super().__init__(classes="frozen")
        self.segments = list(segments)
        self._parts: list[list[Strip]] = []  # each segment's lines at self._width
        self._strips: list[Strip] = []
        self._width = -1

    @property
    def source(self) -> str:
        return "".join(self.segments)

    def extend(self, segments: list[str]) -> None:
        self.segments.extend(segments)  # drawn at the next layout, as a new widget's would be
        self.refresh(layout=True)

    def _render_segment(self, source: str, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update(width=width, height=None, highlight=False)
        markdown = RichMarkdown(task_boxes(source.rstrip()), code_theme="monokai", hyperlinks=False)
        return [Strip(line).simplify() for line in console.render_lines(markdown, options, pad=False)]

    def _join(self) -> None:
        strips: list[Strip] = []
        for part in self._parts:
            if strips:
                strips.append(Strip([], 0))
            strips.extend(part)
        self._strips = strips

    def _render_at(self, width: int) -> list[Strip]:
        if width <= 0:
            return self._strips
        if width != self._width:
            self._parts, self._width = [], width
        if len(self._parts) < len(self.segments):
            self._parts.extend(self._render_segment(seg, width) for seg in self.segments[len(self._parts) :])
            self._join()
        return self._strips

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._render_at(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        strips = self._render_at(width)
        if y >= len(strips):
            return Strip.blank(width, self.rich_style)
        strip = strips[y]
        selection = self.text_selection
        span = selection.get_span(y) if selection is not None else None
        if span is not None:
            # Selection works on the text as drawn, like Textual's Log: highlight the span here.
            start, end = span
            end = strip.cell_length if end == -1 else min(end, strip.cell_length)
            if end > start:
                left, middle, right = strip.divide([start, end, strip.cell_length])
                style = self.screen.get_component_rich_style("screen--selection")
                strip = Strip.join([left, middle.apply_style(style), right])
        return strip.apply_style(self.rich_style).extend_cell_length(width, self.rich_style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the text as drawn (so copy gives what the user sees)."""
        text = "\n".join(strip.text.rstrip() for strip in self._strips)
        return selection.extract(text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


class LiveMarkdown(Settled, Markdown):
    """The live part: a container only (its blocks draw the text), so it is BLANK like ReplyView.
    The blocks it makes while its reply streams settle too (tui/widgets/settled.py): they grow on
    every flush."""

    BLANK = True

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        cls = super().get_block_class(block_name)
        return settled(cls) if self.settling else cls


# The last line: a module another thread is still importing is in sys.modules before it has run,
# so this is what says every class above is there (reply.markdown_ready).
LOADED = True
