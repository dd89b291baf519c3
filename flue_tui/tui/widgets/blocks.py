"""Small one-widget blocks: the user's prompt, notices, and (dimmed, collapsed) thinking."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widgets import Static

from flue_tui.ui.hanging import Hanging
from flue_tui.ui.transcript import NoticeEntry, ThinkingEntry, UserEntry

USER_MAX_LINES = 30


class UserView(Static):
    def __init__(self, entry: UserEntry) -> None:
        lines = entry.text.rstrip().splitlines() or [""]
        if len(lines) > USER_MAX_LINES:
            lines = [*lines[:USER_MAX_LINES], f"… {len(lines) - USER_MAX_LINES} more lines"]
        super().__init__(Text("\n".join(lines)), classes="user")
        self.entry = entry

    def sync(self) -> None:
        pass


class NoticeView(Static):
    def __init__(self, entry: NoticeEntry) -> None:
        super().__init__(Hanging(entry.text), classes=f"notice -{entry.level}")
        self.entry = entry
        self._text = entry.text

    def sync(self) -> None:
        if self.entry.text != self._text:  # only the welcome is ever reworded (its mode, once read)
            self._text = self.entry.text
            self.update(Hanging(self._text))


class ThinkingView(Static):
    """Thinking is shown dimmed: while it streams, its latest line; then one line until clicked."""

    def __init__(self, entry: ThinkingEntry) -> None:
        super().__init__(classes="thinking")
        self.entry = entry
        self.sync()

    def _content(self) -> Text:
        e = self.entry
        lines = e.text.strip().splitlines()
        if e.expanded:
            return Text.assemble(("∴ Thinking", "italic"), "\n", Text(e.text.strip(), style="italic"))
        if not e.done:
            last = lines[-1] if lines else ""
            return Text.assemble(("∴ Thinking… ", "italic"), Text(last, style="italic"))
        return Text(
            f"∴ Thought for {len(lines)} line{'s' if len(lines) != 1 else ''} (click to expand)", style="italic"
        )

    def sync(self) -> None:
        self.set_class(self.entry.expanded, "-expanded")
        self.update(self._content())

    def on_click(self, event: events.Click) -> None:
        if self.entry.done and event.y == 0:
            self.entry.expanded = not self.entry.expanded
            self.sync()
