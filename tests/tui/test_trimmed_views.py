"""A block removed before its Mount event runs (the conversation trims its window while a resumed
session is scrolled fast) must not crash the app: CI saw `MountError` from a reply trimmed so."""

from __future__ import annotations

from textual.app import App
from textual.containers import VerticalScroll

from flue_tui.tui.widgets.views import make_view
from flue_tui.ui.transcript import Entry, NoticeEntry, ReplyEntry, TaskEntry, ToolEntry, Transcript, UserEntry
from tests.tui.conftest import screen_text, wait_for


def _entries() -> list[Entry]:
    child = Transcript(depth=1)
    child.entries.append(ReplyEntry(text="**child** answer"))
    return [
        UserEntry(text="prompt"),
        ReplyEntry(text="**Answer 4960**: done.\n\n- a\n- b\n\n```py\nx = 1\n```\n"),
        ToolEntry(call_id="c1", name="read", args={"path": "a.py"}, status="ok"),
        TaskEntry(call_id="c2", name="task", prompt="look around", child=child),  # running: mounts steps
        NoticeEntry(text="a notice"),
    ]


class Box(App[None]):
    def compose(self):
        yield VerticalScroll(id="box")


async def test_views_removed_before_their_mount_event_are_left_alone():
    app = Box()
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.query_one("#box")
        for _ in range(3):
            for entry in _entries():
                view = make_view(entry)
                box.mount(view)
                view.remove()  # same tick: the Mount event is still queued
        await pilot.pause()
        await pilot.pause(0.2)
        # Still alive and usable: a block mounted normally afterwards shows.
        kept = make_view(ReplyEntry(text="still **here**"))
        await box.mount(kept)
        await wait_for(pilot, lambda: app._exception is not None or "still here" in screen_text(app))
        assert app.return_code is None and app._exception is None
        assert "still here" in screen_text(app)
