"""Assistant text: a small live Markdown that streams block-wise, with finished blocks frozen.

Textual's Markdown mounts a widget per block, and every mount re-lays out every mounted widget.
So once the live Markdown holds more than LIVE_BLOCKS blocks, each whole group of LIVE_BLOCKS
blocks is frozen (rendered by rich, cached per width) into the reply's one frozen widget, and the
live Markdown restarts with the remainder. The groups are those `split_frozen` makes of the
finished text, so a streamed reply ends drawn exactly as the same text drawn at once (a resumed
session, a reply scrolled back into view). A 20k-token reply stays at a few dozen widgets.

The Markdown widgets are replymd.py's, whose import is the Markdown stack. A reply streamed
before the app's background warm-up has imported it (a prompt given at launch, answered at once)
shows its text plain, as one block spaced as a paragraph is, and is drawn as Markdown at the first
flush after the warm-up (the app redraws every view drawn_plain() names), or once it is longer
than PLAIN_MAX. A reply read back from the store (a resumed session) is always drawn as Markdown:
a whole conversation would otherwise change its look under the user's eyes.
"""

from __future__ import annotations

import re
import sys
import weakref
from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import VerticalGroup
from textual.widget import Widget
from textual.widgets import Static

from flue_tui.tui.widgets.settled import Settled
from flue_tui.ui.mdtext import task_boxes
from flue_tui.ui.transcript import ReplyEntry

if TYPE_CHECKING:
    from flue_tui.tui.widgets.replymd import FrozenMarkdown, LiveMarkdown

LIVE_BLOCKS = 24
# A reply drawn plain is wrapped whole at every flush: past this many characters (the warm-up slow
# or failed) it is drawn as Markdown, importing the stack on the loop if it must.
PLAIN_MAX = 16_000
FENCE_RE = r"^\s{0,3}(```|~~~)"


def cut_points(src: str) -> list[int]:
    """Offsets just past each blank line outside a code fence: places where Markdown can be split."""
    cuts: list[int] = []
    pos = 0
    inside = False
    for line in src.splitlines(keepends=True):
        if re.match(FENCE_RE, line):
            inside = not inside
        pos += len(line)
        if not inside and not line.strip() and line.endswith("\n"):
            cuts.append(pos)
    return cuts


def safe_cut(src: str) -> int:
    cuts = cut_points(src)
    return cuts[-1] if cuts else 0


def markdown_ready() -> bool:
    """replymd.py and the Markdown stack are wholly imported (by views.warm, or anyone before)."""
    return getattr(sys.modules.get("flue_tui.tui.widgets.replymd"), "LOADED", False)


_plain: weakref.WeakSet[ReplyView] = weakref.WeakSet()  # the views drawing their text plain


def drawn_plain() -> list[ReplyEntry]:
    """The replies whose views draw them plain: Markdown at their next sync, once it is ready."""
    return [view.entry for view in list(_plain)]


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
        self.md: LiveMarkdown | None = None  # the live Markdown, once drawn as Markdown
        self.frozen: FrozenMarkdown | None = None
        self.plain: Static | None = None  # the text as it is, until the Markdown stack is loaded
        self._live = ""  # the live Markdown's source as received (its own may have task boxes)

    def compose(self):
        if self.entry.streamed and len(self.entry.text) <= PLAIN_MAX and not markdown_ready():
            self.plain = Static(Text(self.entry.text), classes="plain")
            self.shown = len(self.entry.text)
            _plain.add(self)
            yield self.plain
        else:
            yield from self._markdown()

    def _markdown(self) -> list[Widget]:
        """The Markdown widgets for the text so far (imported here, on the loop, if the warm-up has
        not done it yet); the live tail is appended by the next sync."""
        from flue_tui.tui.widgets.replymd import FrozenMarkdown, LiveMarkdown

        self.md = LiveMarkdown(classes="live", open_links=False)
        self._live = ""
        frozen, tail = split_frozen(self.entry.text)
        self.frozen = FrozenMarkdown(*frozen) if frozen else None
        self.shown = len(self.entry.text) - len(tail)
        return [self.frozen, self.md] if self.frozen is not None else [self.md]

    async def on_mount(self) -> None:
        shown = self.md or self.plain
        if shown is None or not shown.is_attached:
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
        plain = self.plain
        if plain is not None:
            if not plain.is_attached:
                return
            if len(self.entry.text) <= PLAIN_MAX and not markdown_ready():
                if len(self.entry.text) > self.shown:
                    self.shown = len(self.entry.text)
                    plain.update(Text(self.entry.text))
                return
            self.plain = None
            _plain.discard(self)
            await self.mount_all(self._markdown(), before=plain)
            await plain.remove()
        md = self.md
        text = self.entry.text
        if md is None or len(text) <= self.shown or not md.is_attached:
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
                await md.update(boxed)
            else:
                await md.append(fragment)
            return
        if self.frozen is None:
            from flue_tui.tui.widgets.replymd import FrozenMarkdown

            self.frozen = FrozenMarkdown(*segments)
            await self.mount(self.frozen, before=md)
        else:
            self.frozen.extend(segments)
        self._live = rest
        await md.update(task_boxes(rest))
