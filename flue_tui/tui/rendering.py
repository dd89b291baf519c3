"""The app's rendering of what changed: the session's events only touch plain data (ui/router.py),
and a timer flushes it to the widgets at most every FLUSH_S while following the stream, so a fast
stream never floods the UI, counted from the last flush (ui/pacing.py). A mixin of FlueApp, kept
apart so app.py stays the app's layout and keys; the attributes below are the app's own."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from flue_tui.tui.screens.main import MainScreen
from flue_tui.ui.pacing import MIN_WAIT_S, flush_wait
from flue_tui.ui.transcript import ReplyEntry

FLUSH_S = 0.066  # render budget while following the stream
FLUSH_AWAY_S = 0.25  # ... and while the user has scrolled up to read
PAINT_WAITS = 100  # refreshes a reply's first frame may wait for its layout (_frame_painted)


class Rendering:
    router: Any
    conversation: Any
    plan_view: Any
    _flush_timer: Any
    _flushing: bool
    _render_s: float  # how long the last flush took
    _flushed_at: float  # when the last flush ended (perf_counter)
    _frame_s: float  # the CPU from a flush's start until it was painted (layout and compositing too)
    _draws_answer: bool  # the flush set for a reply's first text
    answer_drawn: asyncio.Event  # set once such a flush is painted
    screen: Any
    set_timer: Any
    batch_update: Any
    call_after_refresh: Any
    refresh_status: Any
    _update_ticker: Any

    def get_default_screen(self) -> MainScreen:
        # Textual's screen with its note of what a layout must redo fixed (tui/screens/main.py).
        return MainScreen(id="_default")

    def request_flush(self) -> None:
        started, self.router.reply_started = self.router.reply_started, False
        ended, self.router.reply_ended = self.router.reply_ended, False
        if started:
            # A reply's first text is drawn at once: the pace bounds how often a stream redraws,
            # not how soon its answer shows (a model answering at once came a pace after the
            # prompt's own frame). One extra frame a reply at most.
            if self._flush_timer is not None:
                self._flush_timer.stop()
            self._draws_answer = True
            self._flush_timer = self.set_timer(MIN_WAIT_S, self._render_changes)
            return
        if ended and self._flush_timer is not None:
            # The reply is whole: its last frame does not wait out the pacing below (a
            # Markdown-heavy reply's last token was on screen up to a heavy frame's CPU later).
            self._flush_timer.stop()
            self._flush_timer = None
        if self._flush_timer is None:
            delay = FLUSH_S if self.conversation.following else FLUSH_AWAY_S
            if not ended:
                # A slow machine or a heavy flush: wait twice as long as the last flush took, so
                # rendering never takes more than a third of the loop and keys (Esc) stay
                # responsive; and never less than the last whole frame's CPU (below), or heavy
                # frames (a Markdown-heavy reply's) would follow each other back to back.
                delay = max(delay, 2 * self._render_s, self._frame_s)
            now = time.perf_counter()
            # A change during a flush: paced from now (the flush's end is later), never polled.
            wait = flush_wait(now if self._flushing else self._flushed_at, delay, now)
            self._flush_timer = self.set_timer(wait, self._render_changes)

    async def _render_changes(self) -> None:
        self._flush_timer = None
        if self._flushing:
            self.request_flush()
            return
        self._flushing = True
        began, cpu = time.perf_counter(), time.process_time()
        appended: list = []
        try:
            appended, dirty = self.router.take()
            hosts: dict[int, tuple[Any, list]] = {}
            for transcript, entry in appended:
                if transcript.view is not None:
                    hosts.setdefault(id(transcript), (transcript.view, []))[1].append(entry)
            with self.batch_update():
                for host, entries in hosts.values():
                    if host.is_attached:
                        await host.add_entries(entries)
                for entry in dirty:
                    view = entry.view
                    if view is not None and view.is_attached:
                        result = view.sync()
                        if asyncio.iscoroutine(result):
                            await result
                if self.router.status_dirty:
                    self.refresh_status()
                if self.router.plan_dirty:
                    self.router.plan_dirty = False
                    self.plan_view.show(self.router.plan)
        finally:
            self._flushing = False
            # Paced from the flush's end: with a steady stream the idle time after each flush is
            # the whole interval, as when it counted from the change that followed it.
            self._flushed_at = time.perf_counter()
            self._render_s = min(0.5, self._flushed_at - began)
            # The frame is the flush and then Textual's layout and compositing of what it changed,
            # most of its cost: its CPU counts once painted (CPU, not wall: the wall time to the
            # paint includes waiting for Textual's update tick). The stream's own work in between
            # counts too, so only a frame dearer than the flush interval slows the cadence.
            # A reply's first text, if this flush mounted it (one that began during the flush is
            # the next flush's: the mark waits for it).
            answer = self._answer_view(appended) if self._draws_answer else None
            if answer is not None:
                self._draws_answer = False
                self.screen_urgent()
            self.call_after_refresh(self._frame_painted, cpu, answer)
        self._update_ticker()

    def screen_urgent(self) -> None:
        """The main screen's next paint comes as soon as it is idle (tui/screens/main.py); a
        dialog over it paints on Textual's timer as ever."""
        if isinstance(self.screen, MainScreen):
            self.screen.paint_now = True

    def _answer_view(self, appended: list) -> Any:
        """The view of the reply whose first text this flush draws (the root's newest)."""
        for transcript, entry in reversed(appended):
            if transcript is self.router.root and isinstance(entry, ReplyEntry):
                return entry.view
        return None

    def _frame_painted(self, cpu: float, answer: Any = None, waits: int = 0) -> None:
        self._frame_s = min(0.5, time.process_time() - cpu)
        if answer is None:
            return
        # Textual runs this once its screen has nothing dirty, which can come before a widget
        # mounted by the flush has asked for its layout (each widget asks from its own task, so
        # under load the screen can be idle first): the answer is painted once it is in the
        # screen's map. Bounded, for a view that will never be laid out (removed meanwhile).
        if answer.is_attached and answer not in answer.screen._compositor and waits < PAINT_WAITS:
            self.call_after_refresh(self._frame_painted, cpu, answer, waits + 1)
            return
        self.answer_drawn.set()
