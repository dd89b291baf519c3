"""The session picker: this directory's sessions (or all), newest first, filtered as you type.

Enter resumes. The filter has the keyboard at first (Up/Down still move through the list);
Tab moves to the list, where `d` deletes (after a yes/no question) and `/` returns to the filter.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from flue_tui.tui.screens.answered import AnsweredOnce, Question

LIMIT = 500


def _when(iso: str) -> str:
    from flue_tui.store.values import local_time

    return local_time(iso)


def session_label(info: Any, width: int = 48) -> Text:
    title = info.name or info.title or info.id
    if len(title) > width:
        title = title[: width - 1] + "…"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{title:<{width}}", style="bold" if info.name else "")
    text.append(f"  {_when(info.updated_at)}", style="dim")
    count = info.message_count
    text.append(f"  {count:>5} {'message ' if count == 1 else 'messages'}", style="dim")
    # Two sessions with one title (the same first prompt) differ here: the id's random tail.
    text.append(f"  {info.id[-6:].lower()}", style="dim")
    if info.name and info.title:
        text.append(f"  {info.title}", style="dim italic")
    return text


class ConfirmDelete(Question[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.question)
            yield Static(Text("y: delete   n / esc: keep", style="dim"))

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class SessionPicker(AnsweredOnce[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+a", "toggle_all", "All directories"),
        Binding("ctrl+d", "delete", "Delete", show=False),
    ]

    def __init__(self, store: Any, cwd: str, query: str = "") -> None:
        super().__init__()
        self.store = store
        self.cwd = cwd
        self.all = False
        self.sessions: list[Any] = []
        self.shown: list[Any] = []
        self.query_text = query
        self._reads: set[asyncio.Future[Any]] = set()  # store calls still running in a thread

    async def _store_call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        call = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kwargs))
        self._reads.add(call)
        call.add_done_callback(self._reads.discard)
        return await call

    async def settled(self) -> None:
        """Once no store call of this picker is running: whoever owns the store may close it (a
        list still being read when Esc was pressed would otherwise meet a closed connection)."""
        while self._reads:
            await asyncio.wait(set(self._reads))

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Static("", id="picker-title")
            yield Input(value=self.query_text, placeholder="filter sessions", id="picker-filter")
            yield SessionList(id="picker-list")
            with Horizontal(id="picker-help"):
                yield Static(
                    Text("enter: resume · tab: list (d: delete) · ctrl+a: all directories · esc: cancel", style="dim")
                )

    async def on_mount(self) -> None:
        await self.reload()
        if not self.gone:
            self.query_one(Input).focus()

    async def reload(self) -> None:
        cwd = None if self.all else self.cwd
        sessions = await self._store_call(self.store.list_sessions, cwd, limit=LIMIT)
        if self.gone:
            return  # Esc or Enter while the list was read: the picker's widgets are being taken down
        self.sessions = sessions
        where = "all directories" if self.all else self.cwd
        self.query_one("#picker-title", Static).update(
            Text.assemble(
                ("Resume a session", "bold"),
                (f" · {where} · {len(self.sessions)} session{'s' * (len(self.sessions) != 1)}", "dim"),
            )
        )
        self.refilter()

    def refilter(self) -> None:
        words = self.query_one(Input).value.lower().split()
        self.shown = [
            s for s in self.sessions if all(w in f"{s.name or ''} {s.title or ''} {s.id}".lower() for w in words)
        ]
        options = self.query_one(SessionList)
        options.clear_options()
        if self.shown:
            # The title takes what the date and message count leave of the width.
            width = max(16, min(60, (options.size.width or self.app.size.width) - 54))
            options.add_options([Option(session_label(s, width)) for s in self.shown])
            options.highlighted = 0
        else:
            options.add_option(
                Option(Text("no sessions match" if self.sessions else "no sessions yet", style="dim"), disabled=True)
            )

    @on(Input.Changed)
    def _filter_changed(self) -> None:
        self.refilter()

    @on(Input.Submitted)
    def _filter_submitted(self) -> None:
        self._resume(self.query_one(SessionList).highlighted)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._resume(event.option_index)

    def on_key(self, event: Any) -> None:
        # Up/Down move the list while the filter has the keyboard.
        if isinstance(self.focused, Input) and event.key in ("up", "down"):
            options = self.query_one(SessionList)
            options.action_cursor_up() if event.key == "up" else options.action_cursor_down()
            event.stop()

    def _resume(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.shown):
            self.dismiss(self.shown[index].id)

    def action_cancel(self) -> None:
        self.dismiss(None)

    async def action_toggle_all(self) -> None:
        self.all = not self.all
        await self.reload()

    def action_delete(self) -> None:
        index = self.query_one(SessionList).highlighted
        if index is None or not (0 <= index < len(self.shown)):
            return
        info = self.shown[index]

        async def answered(yes: bool | None) -> None:
            if yes:
                await self._store_call(self.store.delete, info.id)
                self.notify(f"Deleted {info.label}")
                await self.reload()

        self.app.push_screen(
            ConfirmDelete(f"Delete {info.label} ({info.message_count} messages)? This cannot be undone."), answered
        )


class SessionList(OptionList):
    BINDINGS = [Binding("d", "screen.delete", "Delete"), Binding("slash", "focus_filter", show=False)]

    def action_focus_filter(self) -> None:
        self.screen.query_one(Input).focus()
