"""A block whose content grows inside a `layout: stream` container gets its new height even when a
later sibling asks for a layout in the same frame (tui/screens/main.py; Textual's own screen kept
the old height). The app's case: a resumed session's task, its steps shown with Ctrl+O while the
bash block below it expands, every mount landing before one layout (as on a loaded box): the task
stayed at its collapsed height, its steps and answer cut off (f2eeb04, seen once on 3.12)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalGroup, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.screens.main import MainScreen
from flue_tui.tui.widgets.task import TaskView
from tests.tui.conftest import idle, ready, screen_text, wait_for
from tests.tui.test_reply_layouts import _painted
from tests.tui.test_snapshot_resume import _stored_session


class _Blocks(App):
    # A rule each: a stream layout keeps the placements it made last (one layout object a rule).
    CSS = "#blocks { layout: stream; } #group { layout: stream; height: auto; }"

    def __init__(self, screen_class: type[Screen]) -> None:
        super().__init__()
        self.screen_class = screen_class

    def get_default_screen(self) -> Screen:
        return self.screen_class(id="_default")

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="blocks"):
            with VerticalGroup(id="group"):
                yield Static("one line", id="inner")
            yield Static("below", id="below")


@pytest.mark.parametrize(("screen_class", "first"), [(MainScreen, 3), pytest.param(Screen, 1, id="textual")])
async def test_a_nested_block_that_grows_takes_its_height_at_once_beside_a_sibling_that_changes(screen_class, first):
    """Textual's own screen is kept as the reference: its first layout keeps the group's old
    height, and only the group's next request (its child's size changed) mends it; in the app such
    a request can keep coming with a later sibling's, frame after frame. The day Textual lays this
    out right at once, the fix can go (`first` becomes 3)."""
    app = _Blocks(screen_class)
    async with app.run_test(size=(40, 12)) as pilot:
        await _painted(pilot)
        group = app.query_one("#group")
        heights: list[int] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, lambda _: heights.append(group.size.height))
        with app.batch_update():
            app.query_one("#inner", Static).update("one\ntwo\nthree")  # deep inside the group first
            app.query_one("#below", Static).update("below, changed")  # then its later sibling
            await pilot.pause()
        await _painted(pilot)
        assert heights[0] == first
        assert group.size.height == 3


async def test_a_resumed_tasks_steps_shown_in_one_frame_keep_their_height(make_app, work):
    app = make_app(options=SessionOptions(resume=_stored_session(str(work))))
    async with app.run_test(size=(100, 32)) as pilot:
        await ready(pilot)
        await idle(pilot)
        await wait_for(pilot, lambda: "Release notes" in screen_text(pilot.app))
        with app.batch_update():  # every mount of Ctrl+O's before the screen's next layout
            await app.action_toggle_details()
        await wait_for(pilot, lambda: screen_text(pilot.app).count("Kid report: notes say hi.") == 2)
        task = app.query_one(TaskView)
        assert task.size.height == sum(c.outer_size.height for c in task.children if c.display)
        assert "kid-out-2" in screen_text(app)
