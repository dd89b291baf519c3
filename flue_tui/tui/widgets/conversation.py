"""The conversation: a scroll view that mounts only a window of the transcript.

Textual re-lays out every mounted widget on every change, so the cost of a token, a keystroke or
a new block grows with the DOM. The window [lo, hi) of transcript entries is mounted; entries
that leave it are unmounted (their data stays in the transcript) and come back when the user
scrolls to them. While following the end, the window's top is trimmed to keep the DOM bounded.

Whoever moves the window holds `_window` until it is done: the flush (a timer's task), the session
worker's `show` (/new, /resume), Enter's jump to the end and the scroll checks all run
concurrently, and each awaits mounts and removals half-way through its bookkeeping. Interleaved,
they mounted a block twice (one copy never removed), left the last session's blocks in a new one,
or stopped new blocks from showing.
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from flue_tui.tui.widgets.settled import Settled
from flue_tui.tui.widgets.views import make_view
from flue_tui.ui.transcript import Entry, Transcript


class Conversation(Settled, VerticalScroll, can_focus=False):
    BLANK = True
    # Weights approximate widget counts (Entry.weight): every layout costs O(mounted widgets).
    high_weight = 220  # trim the top once the mounted entries weigh more than this ...
    low_weight = 150  # ... down to this
    page = 12  # entries mounted per scroll-edge load
    initial = 24  # entries mounted when a transcript is (re)shown

    def __init__(self, transcript: Transcript, **kw) -> None:
        super().__init__(**kw)
        self.transcript = transcript
        self.lo = self.hi = self.known = 0
        self.more_above = Static("", classes="more more-above")
        self.more_below = Static("", classes="more more-below")
        self._check_pending = False
        self._window = asyncio.Lock()

    @property
    def settling(self) -> bool:
        """While the reply streaming at the end of it settles (tui/widgets/settled.py)."""
        entries = self.transcript.entries
        view = entries[-1].view if entries else None
        return isinstance(view, Settled) and view.parent is self and view.settling

    def update_node_styles(self, animate: bool = True) -> None:
        # Hover/focus on the container must not restyle every block inside it (Toad does the same).
        pass

    def compose(self):
        yield self.more_above
        yield self.more_below

    async def on_mount(self) -> None:
        self.anchor()
        await self.show(self.transcript)

    # -- window bookkeeping -----------------------------------------------------------------------
    @property
    def following(self) -> bool:
        return self.is_anchored and not getattr(self, "_anchor_released", False)

    def _weight(self) -> int:
        return sum(e.weight() for e in self.transcript.entries[self.lo : self.hi])

    @property
    def mounted_entries(self) -> list[Entry]:
        return self.transcript.entries[self.lo : self.hi]

    def _update_markers(self) -> None:
        t = self.transcript
        above = self.lo > 0 or t.has_older
        self.more_above.display = above
        if above:
            self.more_above.update(Text("↑ earlier messages: scroll up to load", style="dim"))
        below = len(t.entries) - self.hi
        self.more_below.display = below > 0
        if below > 0:
            self.more_below.update(
                Text(f"↓ {below} newer block{'s' if below != 1 else ''}: scroll down or press ctrl+end", style="dim")
            )

    async def _unmount(self, entries: list[Entry]) -> None:
        widgets = [e.view for e in entries if e.view is not None]
        for e in entries:
            e.view = None
        if widgets:
            await self.remove_children(widgets)

    # -- public -------------------------------------------------------------------------------------
    async def show(self, transcript: Transcript) -> None:
        """Show a transcript from its end (a new session, a resumed one, or a jump to the latest)."""
        async with self._window:
            await self._show(transcript)

    async def _show(self, transcript: Transcript) -> None:
        old = self.transcript
        await self._unmount(old.entries[self.lo : self.hi])
        if old is not transcript and old.view is self:
            old.view = None
        self.transcript = transcript
        transcript.view = self
        if len(transcript.entries) < self.initial and transcript.has_older:
            transcript.load_older(self.initial - len(transcript.entries))
        n = len(transcript.entries)
        self.lo, self.hi, self.known = max(0, n - self.initial), n, n
        views = [make_view(e) for e in transcript.entries[self.lo : self.hi]]
        if views:
            await self.mount_all(views, before=self.more_below)
        self._update_markers()
        self.anchor()
        self.schedule_check()

    async def add_entries(self, entries: list[Entry]) -> None:
        """New entries were appended to the transcript (called from the flush). It mounts what the
        shown transcript gained, so entries of a transcript replaced meanwhile add nothing."""
        async with self._window:
            await self._add_entries()

    async def _add_entries(self) -> None:
        t = self.transcript
        n = len(t.entries)
        if self.hi >= self.known:
            views = [make_view(e) for e in t.entries[self.hi : n] if e.view is None]
            self.hi = n
            if views:
                await self.mount_all(views, before=self.more_below)
            if self.following:
                await self._trim_top(adjust=False)
        self.known = n
        self._update_markers()

    async def jump_to_end(self) -> None:
        async with self._window:
            if self.hi < len(self.transcript.entries):
                await self._show(self.transcript)
            else:
                self.anchor()

    async def set_expanded(self, expanded: bool) -> None:
        """Ctrl+O: expand or collapse the finished blocks, the block at the top of the view staying
        where it is on screen (blocks above it may grow, they must not push it away)."""
        async with self._window:
            anchor = None if self.following else self._top_entry()
            offset = anchor.view.virtual_region.y - self.scroll_y if anchor is not None else 0
            for entry in self.mounted_entries:
                if hasattr(entry, "expanded") and getattr(entry, "status", "running") != "running":
                    setattr(entry, "expanded", expanded)  # noqa: B010 - only entries that have it
                    if entry.view is not None:
                        result = entry.view.sync()
                        if asyncio.iscoroutine(result):
                            await result

        def keep_place() -> None:
            view = anchor.view if anchor is not None else None
            if view is not None and view.is_attached:
                self.scroll_to(y=max(0, view.virtual_region.y - offset), animate=False, immediate=True)

        if anchor is not None:
            self.call_after_refresh(keep_place)

    def _top_entry(self) -> Entry | None:
        """The first mounted block that reaches into the view."""
        for entry in self.mounted_entries:
            view = entry.view
            if view is not None and view.virtual_region.bottom > self.scroll_y:
                return entry
        return None

    # -- scrolling -----------------------------------------------------------------------------------
    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.schedule_check()

    def schedule_check(self) -> None:
        if not self._check_pending:
            self._check_pending = True
            # Debounced, then after a refresh so scroll_y and max_scroll_y describe the current layout.
            self.set_timer(0.05, lambda: self.call_after_refresh(self._check_window))

    async def _check_window(self) -> None:
        self._check_pending = False
        async with self._window:
            if not self.is_attached:
                return
            t = self.transcript
            if self.scroll_y <= 1 and (self.lo > 0 or t.has_older):
                await self._load_older()
            elif self.scroll_y >= self.max_scroll_y - 1 and self.hi < len(t.entries):
                await self._load_newer()
            elif self.following and self._weight() > self.high_weight:
                await self._trim_top(adjust=False)

    async def _load_older(self) -> None:
        t = self.transcript
        if self.lo == 0:
            k = len(t.load_older(self.page))
            self.lo += k
            self.hi += k
            self.known += k
        start = max(0, self.lo - self.page)
        if start == self.lo:
            self._update_markers()
            return
        anchor_entry = t.entries[self.lo] if self.lo < len(t.entries) else None
        anchor_view = anchor_entry.view if anchor_entry is not None else None
        before_y = anchor_view.virtual_region.y if anchor_view is not None else 0
        old_scroll = self.scroll_y
        views = [make_view(e) for e in t.entries[start : self.lo]]
        self.lo = start
        await self.mount_all(views, after=self.more_above)
        self._update_markers()
        if self._weight() > self.high_weight:
            await self._trim_bottom()

        def keep_place() -> None:
            if anchor_view is not None and anchor_view.is_attached and not self.following:
                delta = anchor_view.virtual_region.y - before_y
                self.scroll_to(y=old_scroll + delta, animate=False, immediate=True)
            self.schedule_check()

        self.call_after_refresh(keep_place)

    async def _load_newer(self) -> None:
        t = self.transcript
        end = min(len(t.entries), self.hi + self.page)
        views = [make_view(e) for e in t.entries[self.hi : end] if e.view is None]
        self.hi = end
        if views:
            await self.mount_all(views, before=self.more_below)
        await self._trim_top(adjust=True)
        self._update_markers()
        if self.hi == len(t.entries):
            self.anchor()
        self.schedule_check()

    async def _trim_top(self, *, adjust: bool) -> None:
        t = self.transcript
        weight = self._weight()
        if weight <= self.high_weight:
            return
        drop: list[Entry] = []
        lo = self.lo
        while weight > self.low_weight and lo < self.hi - 1:
            e = t.entries[lo]
            if e.live:
                break
            drop.append(e)
            weight -= e.weight()
            lo += 1
        if not drop:
            return
        delta = 0
        first, kept = drop[0].view, t.entries[lo].view
        if adjust and first is not None and kept is not None:
            delta = kept.virtual_region.y - first.virtual_region.y
        self.lo = lo
        scroll = self.scroll_y
        await self._unmount(drop)
        if delta:
            self.scroll_to(y=max(0, scroll - delta), animate=False, immediate=True)
        self._update_markers()

    async def _trim_bottom(self) -> None:
        t = self.transcript
        weight = self._weight()
        drop: list[Entry] = []
        hi = self.hi
        while weight > self.low_weight and hi > self.lo + 1:
            hi -= 1
            drop.append(t.entries[hi])
            weight -= t.entries[hi].weight()
        self.hi = hi
        await self._unmount(drop)
        self._update_markers()
