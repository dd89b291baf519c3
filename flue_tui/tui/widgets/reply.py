"""Assistant text: a small live Markdown that streams block-wise, with finished blocks frozen.

Textual's Markdown mounts a widget per block, and every mount re-lays out every mounted widget.
So once the live Markdown holds more than LIVE_BLOCKS blocks, each whole group of LIVE_BLOCKS
blocks is frozen (rendered by rich, cached per width) into the reply's one frozen widget, and the
live Markdown restarts with the remainder. The groups are those `split_frozen` makes of the
finished text, so a streamed reply ends drawn exactly as the same text drawn at once (a resumed
session, a reply scrolled back into view). A 20k-token reply stays at a few dozen widgets.
"""

from __future__ import annotations

import re

from rich.markdown import Markdown as RichMarkdown
from textual.containers import VerticalGroup
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock

from flue_tui.tui.widgets.settled import Settled, settled
from flue_tui.ui.mdtext import task_boxes
from flue_tui.ui.transcript import ReplyEntry

LIVE_BLOCKS = 24
FENCE_RE = re.compile(r"^\s{0,3}(```|~~~)")


def cut_points(src: str) -> list[int]:
    """Offsets just past each blank line outside a code fence: places where Markdown can be split."""
    cuts: list[int] = []
    pos = 0
    inside = False
    for line in src.splitlines(keepends=True):
        if FENCE_RE.match(line):
            inside = not inside
        pos += len(line)
        if not inside and not line.strip() and line.endswith("\n"):
            cuts.append(pos)
    return cuts


def safe_cut(src: str) -> int:
    cuts = cut_points(src)
    return cuts[-1] if cuts else 0


def split_frozen(src: str, blocks: int = LIVE_BLOCKS) -> tuple[list[str], str]:
    """A finished reply as frozen segments of about `blocks` blocks each, plus a live tail."""
    cuts = [c for c in cut_points(src) if c < len(src)]
    if len(cuts) <= blocks:
        return [], src
    segments: list[str] = []
    start = 0
    for i in range(blocks - 1, len(cuts), blocks):
        segments.append(src[start : cuts[i]])
        start = cuts[i]
    return segments, src[start:]


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


class ReplyView(Settled, VerticalGroup):
    """The view of a ReplyEntry. `sync()` appends whatever text arrived since the last flush."""

    # A container draws only its background around its blocks: without BLANK, Textual renders the
    # whole height of it (a long reply's ~1,500 blank lines) again on every frame its height grows.
    BLANK = True

    @property
    def settling(self) -> bool:
        """Laid out once per flush (tui/widgets/settled.py) while it streams at the conversation's
        root (the Conversation is Settled; a task's steps are not), never once it is whole."""
        return self.entry.live and isinstance(self.parent, Settled)

    def __init__(self, entry: ReplyEntry) -> None:
        super().__init__(classes="reply")
        self.entry = entry
        self.shown = 0
        self.md = LiveMarkdown(classes="live", open_links=False)
        self.frozen: FrozenMarkdown | None = None
        self._live = ""  # the live Markdown's source as received (its own may have task boxes)

    def compose(self):
        frozen, tail = split_frozen(self.entry.text)
        if frozen:
            self.frozen = FrozenMarkdown(*frozen)
            yield self.frozen
        self.shown = len(self.entry.text) - len(tail)
        yield self.md

    async def on_mount(self) -> None:
        if not self.md.is_attached:
            # Trimmed out of the conversation's window before its Mount event ran (scrolling fast
            # through a long session): it will never be seen, and its Markdown cannot take blocks.
            return
        await self.sync()
        if self.parent is not None and self.parent.has_class("entries"):
            # Inside a task block that was laid out before this reply had its Markdown blocks (its
            # steps shown on Ctrl+O or a click): its height must be taken again, or the answer is cut.
            # Markdown lays its blocks out over the next frames, so once more a little later.
            self.call_after_refresh(self.screen.refresh, layout=True)
            self.set_timer(0.25, lambda: self.screen.refresh(layout=True) if self.is_attached else None)

    @property
    def source(self) -> str:
        return self.entry.text

    async def sync(self) -> None:
        text = self.entry.text
        if len(text) <= self.shown or not self.md.is_attached:
            return
        fragment = text[self.shown :]
        self.shown = len(text)
        self._live += fragment
        # The live part starts where a group ended, so these are the groups split_frozen makes of
        # the whole text (a big batch after the loop was busy may bring several).
        segments, rest = split_frozen(self._live)
        if not segments:
            boxed = task_boxes(self._live)
            if boxed != self._live or "☑" in self._live or "☐" in self._live:  # a task list (rare): whole
                await self.md.update(boxed)
            else:
                await self.md.append(fragment)
            return
        if self.frozen is None:
            self.frozen = FrozenMarkdown(*segments)
            await self.mount(self.frozen, before=self.md)
        else:
            self.frozen.extend(segments)
        self._live = rest
        await self.md.update(task_boxes(rest))
