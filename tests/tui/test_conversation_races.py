"""The conversation's window is moved by the flush (a timer's own task), by `show` (the session
worker on /new and /resume, Enter's jump to the end) and by the scroll checks, concurrently; each
awaits mounts and removals half-way. Started in the same tick (gather: the first runs up to its
first await, then the second), they must leave one block per shown entry and no other."""

from __future__ import annotations

import asyncio

from textual.app import App

from flue_tui.tui.widgets.conversation import Conversation
from flue_tui.ui.transcript import Entry, NoticeEntry, Transcript
from tests.tui.conftest import screen_text


class Host(App[None]):
    def __init__(self, transcript: Transcript) -> None:
        super().__init__()
        self.transcript = transcript

    def compose(self):
        self.conversation = Conversation(self.transcript)
        yield self.conversation


def _transcript(*texts: str) -> Transcript:
    t = Transcript()
    t.entries = [NoticeEntry(text=text) for text in texts]
    return t


def _blocks(conversation: Conversation) -> list:
    return [w for w in conversation.children if not w.has_class("more")]


def _assert_one_block_per_entry(app: Host) -> None:
    c = app.conversation
    shown = c.transcript.entries[c.lo : c.hi]
    assert _blocks(c) == [e.view for e in shown]  # in order, none twice, none stray
    assert c.hi == c.known == len(c.transcript.entries)
    text = screen_text(app)
    for entry in c.transcript.entries:
        assert isinstance(entry, NoticeEntry) and text.count(entry.text) == 1, (entry, text)
    assert app._exception is None


async def test_a_jump_to_the_end_racing_the_flush_mounts_each_block_once():
    t = _transcript("block 1", "block 2", "block 3")
    app = Host(t)
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        new: list[Entry] = [NoticeEntry(text=f"new {i}") for i in range(3)]
        t.entries.extend(new)
        # Enter's jump to the end (show) and the flush (add_entries) in one tick: before, both
        # made views for the new entries and one copy stayed mounted for good.
        await asyncio.gather(app.conversation.show(t), app.conversation.add_entries(new))
        await pilot.pause()
        _assert_one_block_per_entry(app)


async def test_the_flush_of_the_last_session_does_not_leak_into_a_new_one():
    old = _transcript("old 1", "old 2")
    app = Host(old)
    async with app.run_test(size=(60, 24)) as pilot:
        await pilot.pause()
        late: list[Entry] = [NoticeEntry(text="old late")]
        old.entries.extend(late)  # the last session's "Interrupted" notice, its flush pending
        fresh = _transcript("fresh 1")
        await asyncio.gather(app.conversation.show(fresh), app.conversation.add_entries(late))
        await pilot.pause()
        after = NoticeEntry(text="fresh 2")
        fresh.entries.append(after)
        await app.conversation.add_entries([after])  # the new session's next block shows
        await pilot.pause()
        _assert_one_block_per_entry(app)
        assert "old" not in screen_text(app)
