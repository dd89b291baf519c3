"""A `task` call: the child's agent and prompt, its live steps nested inside, then its answer.

The nested steps are an EntryList bound to the child's transcript, showing only its last few
entries, so several children streaming at once stay cheap. A finished child collapses to its
answer; clicking the header shows the steps again.

Child entries are made into widgets by the `MakeView` that views.py hands in (it makes the
TaskView too): passed, not imported, so the two modules need not import each other.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import events
from textual.containers import VerticalGroup
from textual.widget import Widget
from textual.widgets import Static

from flue_tui.tui.widgets.tool import ToolView
from flue_tui.ui.mdtext import task_boxes
from flue_tui.ui.transcript import Entry, TaskEntry, Transcript

MakeView = Callable[[Entry], Widget]

CHILD_VISIBLE = 6
ANSWER_LINES = 12


class EntryList(VerticalGroup):
    """The last `limit` entries of a (child) transcript, mounted; older ones are left out."""

    def __init__(self, transcript: Transcript, make_view: MakeView, limit: int = CHILD_VISIBLE) -> None:
        super().__init__(classes="entries")
        self.transcript = transcript
        self.make_view = make_view
        self.limit = limit
        self.more = Static("", classes="more")
        # The views this list made. Another list of the same steps can be composed while this one
        # is still being taken down (a task's steps hidden and shown again in one tick): each list
        # lets go only of its own views, and never takes over the old one's.
        self._made: set[Widget] = set()

    def _view(self, entry: Entry) -> Widget:
        view = self.make_view(entry)
        self._made.add(view)
        return view

    def compose(self):
        yield self.more
        for e in self.transcript.entries[-self.limit :]:
            yield self._view(e)  # whatever view an entry has is an older list's, on its way out
        self._update_more()

    def on_mount(self) -> None:
        if self.is_attached:  # not when removed before its Mount event ran (it would then take entries)
            self.transcript.view = self

    def on_unmount(self) -> None:
        if self.transcript.view is self:
            self.transcript.view = None
        for e in self.transcript.entries[-(self.limit + 8) :]:
            if e.view in self._made:
                e.view = None
        self._made.clear()

    def _mounted(self) -> list[Entry]:
        return [e for e in self.transcript.entries[-(self.limit + 8) :] if e.view is not None and e.view.parent is self]

    def _update_more(self) -> None:
        hidden = len(self.transcript.entries) - min(self.limit, len(self.transcript.entries))
        self.more.update(Text(f"… {hidden} earlier step{'s' if hidden != 1 else ''}", style="dim"))
        self.more.display = hidden > 0

    async def add_entries(self, entries: list[Entry]) -> None:
        views = [self._view(e) for e in entries if e.view is None or e.view not in self._made]
        if views:
            await self.mount_all(views)
        mounted = self._mounted()
        excess = [e for e in mounted[: max(0, len(mounted) - self.limit)] if not e.live]
        if excess:
            widgets = [e.view for e in excess]
            for e in excess:
                self._made.discard(e.view)
                e.view = None
            await self.remove_children(widgets)
        self._update_more()


class TaskHeader(ToolView):
    """The task's one-line header; the answer and steps below it are the TaskView's."""

    def _rebuild(self) -> None:
        self._body, self._hidden = None, 0
        self.set_class(self.entry.status == "error", "-error")

    async def on_click(self, event: events.Click) -> None:
        if event.y == 0 and isinstance(self.parent, TaskView):
            event.stop()
            await self.parent.toggle()


class TaskView(VerticalGroup):
    def __init__(self, entry: TaskEntry, make_view: MakeView) -> None:
        super().__init__(classes="task")
        self.entry = entry
        self.make_view = make_view
        self.header = TaskHeader(entry)
        self.prompt = Static("", classes="task-prompt")
        self.answer = Static("", classes="task-answer")
        self.steps: EntryList | None = None

    def compose(self):
        yield self.header
        yield self.prompt
        yield self.answer

    async def on_mount(self) -> None:
        await self.sync()

    @property
    def finished(self) -> bool:
        return self.entry.answer is not None or self.entry.status != "running"

    async def sync(self) -> None:
        if not self.is_attached:
            # Removed (trimmed out of the conversation's window) before its Mount event ran: it
            # will never be seen, and it can no longer take children.
            return
        e = self.entry
        self.header.sync()
        prompt = e.prompt.strip().splitlines()
        text = prompt[0] if prompt else ""
        if len(prompt) > 1:
            text += " …"
        self.prompt.update(Text(text, style="dim italic"))
        self.prompt.display = bool(text) and (not self.finished or e.expanded)
        show_steps = e.child is not None and (not self.finished or e.expanded)
        if show_steps and self.steps is None:
            assert e.child is not None
            self.steps = EntryList(e.child, self.make_view)
            await self.mount(self.steps, before=self.answer)
        elif not show_steps and self.steps is not None:
            steps, self.steps = self.steps, None
            await steps.remove()
        if self.finished and e.answer:
            lines = e.answer.strip().splitlines()
            shown = "\n".join(lines[:ANSWER_LINES])
            if len(lines) > ANSWER_LINES:
                shown += f"\n\n*… {len(lines) - ANSWER_LINES} more lines*"
            renderable = (
                Text(shown, style="red") if e.status == "error" else RichMarkdown(task_boxes(shown), hyperlinks=False)
            )
            self.answer.update(renderable)
            self.answer.display = True
        else:
            self.answer.display = False

    async def toggle(self) -> None:
        if not self.finished:
            return
        self.entry.expanded = not self.entry.expanded
        await self.sync()
