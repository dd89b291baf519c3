"""Entry → widget. Every conversation block is made here, and records itself on its entry.

Each view's module is imported when its first entry is shown: the first frame holds only the
welcome notice, and the reply view's Markdown stack (rich.markdown, markdown-it) is about half of
the app's start-up CPU. `warm()` imports the rest in a thread after that frame, so the first reply
does not pay for it on the event loop (until it has, a streaming reply is drawn plain: reply.py).
"""

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


def warm() -> None:
    """Import every view module (blocking: the app calls it in a thread after the first frame)."""
    import importlib

    for name in ("reply", "replymd", "task"):  # task.py imports tool.py
        importlib.import_module(f"flue_tui.tui.widgets.{name}")


def make_view(entry: Entry) -> Widget:
    view: Widget
    if isinstance(entry, TaskEntry):
        from flue_tui.tui.widgets.task import TaskView

        view = TaskView(entry, make_view)  # its child's steps are made here too
    elif isinstance(entry, ToolEntry):
        from flue_tui.tui.widgets.tool import ToolView

        view = ToolView(entry)
    elif isinstance(entry, ReplyEntry):
        from flue_tui.tui.widgets.reply import ReplyView

        view = ReplyView(entry)
    elif isinstance(entry, ThinkingEntry):
        from flue_tui.tui.widgets.blocks import ThinkingView

        view = ThinkingView(entry)
    elif isinstance(entry, UserEntry):
        from flue_tui.tui.widgets.blocks import UserView

        view = UserView(entry)
    elif isinstance(entry, NoticeEntry):
        from flue_tui.tui.widgets.blocks import NoticeView

        view = NoticeView(entry)
    else:
        raise TypeError(f"no view for {type(entry).__name__}")
    entry.view = view
    return view
