"""Long sessions: the mounted DOM stays bounded, and a huge resumed session opens at its end."""

from __future__ import annotations

from pathlib import Path

from flue_tui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage, message_to_dict
from flue_tui.runtime.start import SessionOptions
from flue_tui.store.db import write
from flue_tui.store.sessions import SessionStore
from flue_tui.tui.widgets.reply import LIVE_BLOCKS, ReplyView
from flue_tui.tui.widgets.replymd import FrozenMarkdown
from flue_tui.ui.transcript import ReplyEntry, UserEntry
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


def _mounted(app) -> int:
    return len(list(app.conversation.query("*")))


async def test_many_turns_keep_the_dom_bounded(make_app, fakellm):
    fakellm.script(Turn(text="Answer with a couple of words.\n\nAnd a second paragraph.", repeat=60))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        conv = app.conversation
        conv.high_weight, conv.low_weight = 40, 24
        peak = 0
        for i in range(60):
            await submit(pilot, f"question {i}")
            await idle(pilot)
            peak = max(peak, _mounted(app))
        entries = app.transcript.entries
        assert len([e for e in entries if isinstance(e, UserEntry)]) == 60
        # Old entries keep their data but no widget; the window stays under the bound.
        assert entries[0].view is None and conv.lo > 0
        assert conv._weight() <= conv.high_weight
        assert peak < 150
        assert "question 59" in screen_text(app)


async def test_long_reply_freezes_finished_blocks(make_app, fakellm):
    fakellm.script(Turn(text_tokens=3000, tokens_per_second=20000))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a lot")
        await idle(pilot, timeout=120)
        reply = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
        view = reply.view
        assert isinstance(view, ReplyView)
        frozen = list(view.query(FrozenMarkdown))
        assert frozen, "a 50-paragraph reply should have frozen segments"
        assert len(view.md.children) <= LIVE_BLOCKS
        # Nothing lost: the frozen segments plus the live part are the whole reply.
        assert "".join(f.source for f in frozen) + view.md.source == reply.text
        assert _mounted(app) < 120


def _make_big_session(work: Path, n_turns: int) -> str:
    store = SessionStore.open(None)
    try:
        info = store.create("ses_bigresume000000000000000", cwd=str(work), model="openai/fake", title="big one")
        with write(store.conn):
            for i in range(n_turns):
                call = ToolCall(id=f"call_{i}", name="read", arguments={"path": f"file_{i}.py"})
                for m in (
                    UserMessage(content=f"prompt number {i}"),
                    AssistantMessage(text=f"Reading file {i}.", tool_calls=[call], stop_reason="tool_calls"),
                    ToolResultMessage(
                        tool_call_id=call.id,
                        tool_name="read",
                        text="x = 1",
                        details={"path": f"file_{i}.py", "lines": 1},
                    ),
                    AssistantMessage(text=f"**Answer {i}**: done."),
                ):
                    store.append(info.id, message_to_dict(m))
        return info.id
    finally:
        store.close()


async def test_resume_of_a_huge_session_shows_its_end_and_loads_older_on_scroll(make_app, fakellm, work: Path):
    session_id = _make_big_session(work, 5000)  # 20,000 messages
    app = make_app(options=SessionOptions(resume=session_id))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "Answer 4999" in screen_text(app))
        assert len(app.session.messages) == 20000
        conv, transcript = app.conversation, app.transcript
        # Only the end was converted to entries, and only a window is mounted.
        assert transcript.has_older and len(transcript.entries) < 100
        assert _mounted(app) < 150
        for _ in range(12):
            conv.scroll_home(animate=False, immediate=True)
            await pilot.pause(0.15)
        # Older turns were loaded on the way up; a loaded machine may need more time (and scrolls) for it.
        await wait_for(pilot, lambda: conv.scroll_home(animate=False, immediate=True) or len(transcript.entries) > 60)
        # The bound: the high mark plus at most one page loaded on top of it before trimming.
        bound = conv.high_weight + 4 * conv.page
        assert _mounted(app) <= bound
        assert conv.lo > 0 or transcript.has_older or conv.hi < len(transcript.entries)
        earliest = min(
            int(e.text.split()[-1]) for e in transcript.entries[conv.lo : conv.hi] if isinstance(e, UserEntry)
        )
        assert earliest < 4990
        # Back to the end in one key.
        await pilot.press("ctrl+end")
        await wait_for(pilot, lambda: "Answer 4999" in screen_text(app))
        assert conv.hi == len(transcript.entries)
        assert _mounted(app) <= bound
