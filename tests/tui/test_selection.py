"""Frozen Markdown segments (long replies) can be selected and copied like live text."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Offset
from textual.selection import Selection

from flue_tui.tui.widgets.replymd import FrozenMarkdown

SOURCE = "# Title\n\nFirst paragraph with **bold** words.\n\nSecond paragraph.\n"


class _One(App):
    def compose(self) -> ComposeResult:
        yield FrozenMarkdown(SOURCE)


async def test_frozen_segment_selection_copies_what_is_drawn():
    app = _One()
    async with app.run_test(size=(60, 12)) as pilot:
        widget = app.query_one(FrozenMarkdown)
        lines = [strip.text.rstrip() for strip in widget._strips]
        para = next(i for i, line in enumerate(lines) if "First paragraph" in line)
        start = lines[para].index("First")
        selection = Selection.from_offsets(Offset(start, para), Offset(start + len("First paragraph"), para))
        app.screen.selections = {widget: selection}
        await pilot.pause()
        assert app.screen.get_selected_text() == "First paragraph"
        # The selected cells are drawn differently from the same cells unselected.
        highlighted = widget.render_line(para).crop(start, start + 5)
        app.screen.selections = {}
        await pilot.pause()
        plain = widget.render_line(para).crop(start, start + 5)
        assert highlighted.text == plain.text == "First"
        assert [seg.style for seg in highlighted] != [seg.style for seg in plain]
        everything = Selection(None, None)
        assert "Second paragraph." in widget.get_selection(everything)[0]
