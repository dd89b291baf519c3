"""A finished task's steps are shown and hidden by a click on its header, Ctrl+O and the flush,
each from its own task. Hidden and shown again in one tick, the new list of steps was composed
while the old one was still being taken down: it skipped the entries the old one still held, and
the old one's unmount then cut them loose, so the task showed no steps and they never updated."""

from __future__ import annotations

import asyncio

from textual.app import App
from textual.containers import VerticalScroll

from flue_tui.tui.widgets.task import EntryList, TaskView
from flue_tui.tui.widgets.views import make_view
from flue_tui.ui.transcript import Entry, NoticeEntry, ReplyEntry, TaskEntry, Transcript
from tests.tui.conftest import screen_text


class Box(App[None]):
    def compose(self):
        yield VerticalScroll(id="box")


def _task() -> TaskEntry:
    child = Transcript(depth=1)
    steps: list[Entry] = [NoticeEntry(text=f"step {i}") for i in range(3)]
    child.entries = [*steps, ReplyEntry(text="child answer", done=True)]
    return TaskEntry(call_id="t1", name="task", prompt="look around", child=child, status="ok", answer="done")


async def test_steps_hidden_and_shown_again_in_one_tick_are_all_shown():
    app = Box()
    async with app.run_test(size=(80, 30)) as pilot:
        entry = _task()
        entry.expanded = True
        view = make_view(entry)
        assert isinstance(view, TaskView)
        await app.query_one("#box").mount(view)
        await pilot.pause()
        assert view.steps is not None and "step 2" in screen_text(app)

        async def hide() -> None:
            entry.expanded = False
            await view.sync()

        async def show() -> None:
            entry.expanded = True
            await view.sync()

        await asyncio.gather(hide(), show())  # e.g. the flush's sync and Ctrl+O
        await pilot.pause()
        steps = view.steps
        assert isinstance(steps, EntryList) and steps.is_attached
        assert entry.child is not None
        for e in entry.child.entries:
            assert e.view is not None and e.view.parent is steps, e  # shown, and reachable by the flush
        assert "step 2" in screen_text(app) and app._exception is None
