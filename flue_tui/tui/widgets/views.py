"""Entry → widget. Every conversation block is made here, and records itself on its entry."""

from __future__ import annotations

from textual.widget import Widget

from flue_tui.ui.transcript import (
    Entry,
    NoticeEntry,
    ReplyEntry,
    TaskEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)


def make_view(entry: Entry) -> Widget:
    from flue_tui.tui.widgets.blocks import NoticeView, ThinkingView, UserView
    from flue_tui.tui.widgets.reply import ReplyView
    from flue_tui.tui.widgets.task import TaskView
    from flue_tui.tui.widgets.tool import ToolView

    view: Widget
    if isinstance(entry, TaskEntry):
        view = TaskView(entry)
    elif isinstance(entry, ToolEntry):
        view = ToolView(entry)
    elif isinstance(entry, ReplyEntry):
        view = ReplyView(entry)
    elif isinstance(entry, ThinkingEntry):
        view = ThinkingView(entry)
    elif isinstance(entry, UserEntry):
        view = UserView(entry)
    elif isinstance(entry, NoticeEntry):
        view = NoticeView(entry)
    else:
        raise TypeError(f"no view for {type(entry).__name__}")
    entry.view = view
    return view
