"""A growing reply is laid out once per flush (issue 28). Textual's `virtual_size` reactive asked
for a second layout of the whole screen each time a layout changed a widget's size, and a new
Markdown block for another after its mount; both found the same geometry and repainted it all.

Prose, headings, quotes and rules: the widgets Textual composes inside lists, tables and code
blocks (a list item's Horizontal, a table's cells, a fence's Label) are Textual's own and still
ask for the second layout, a cheap one now (only they are repainted)."""

from __future__ import annotations

import asyncio

from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.widgets.reply import ReplyView
from flue_tui.tui.widgets.replymd import FrozenMarkdown
from flue_tui.tui.widgets.settled import Settled, SettledBlock
from flue_tui.ui.transcript import ReplyEntry
from tests.tui.conftest import idle, loaded, ready, screen_text, wait_for
from tests.tui.test_snapshot_resume import _stored_session

SECTION = (
    "## Section {i}\n\n"
    "A paragraph with **bold**, *italic* and `code`, long enough to wrap once or twice at eighty "
    "columns, so that its height changes as it grows.\n\n"
    "Another paragraph.\n\n> a quote\n\n---\n\n"
)


async def _painted(pilot) -> None:
    """Until the screen has nothing left to lay out or paint (Textual runs after-refresh callbacks
    only then), twice, and a pause: a layout asked for during the last one would run by now."""
    for _ in range(2):
        done = asyncio.get_running_loop().create_future()
        pilot.app.call_after_refresh(lambda done=done: done.done() or done.set_result(None))
        await done
    await pilot.pause(0.1)


async def test_a_growing_reply_is_laid_out_once_per_flush(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await idle(pilot)
        # Taller than the screen already: the scrollbar's coming is a layout of its own (a new width).
        entry = ReplyEntry(text=SECTION.format(i=0) * 2)
        app.transcript.entries.append(entry)
        await app.conversation.add_entries([entry])
        await _painted(pilot)
        assert isinstance(entry.view, ReplyView)
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append)
        counts = []
        for i in range(8):  # past LIVE_BLOCKS blocks (5 a section): a flush that freezes a group is in here too
            entry.text += SECTION.format(i=i)
            layouts.clear()
            with app.batch_update():  # as the app's flush does
                await entry.view.sync()
            await _painted(pilot)
            counts.append(len(layouts))
        assert list(entry.view.query(FrozenMarkdown)), "long enough to have frozen a group"
        assert counts == [1] * len(counts)
        assert "Section 7" in screen_text(app)
        # Whole: Textual's own widgets again, its blocks too (the layout that follows is the usual two).
        entry.done = True
        assert not entry.view.settling and not app.conversation.settling
        assert not any(w.settling for w in entry.view.query(SettledBlock))


async def test_a_resumed_sessions_replies_and_a_tasks_steps_never_settle(make_app, work):
    """Only the reply streaming at the root settles (tui/widgets/settled.py). A resumed task's
    steps shown with Ctrl+O need Textual's second layout: without it the child's answer and the
    task's result were once left at no height (f2eeb04)."""
    app = make_app(options=SessionOptions(resume=_stored_session(str(work))))
    async with app.run_test(size=(100, 32)) as pilot:
        await ready(pilot)
        await idle(pilot)
        await wait_for(pilot, lambda: "Release notes" in screen_text(pilot.app))
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: screen_text(pilot.app).count("Kid report: notes say hi.") == 2)
        views = list(app.query(ReplyView))
        assert any(v.parent is not None and v.parent.has_class("entries") for v in views), "the child's reply"
        assert not app.conversation.settling
        assert not any(w.settling for w in app.query("*") if isinstance(w, Settled))
        assert not list(app.query(SettledBlock))
