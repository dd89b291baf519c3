"""A long Markdown reply streamed in many flushes ends drawn exactly as the same text drawn at once,
and a whole reply's last frame comes at the plain cadence."""

from __future__ import annotations

import threading

import pytest

from flue_tui.tui.widgets.reply import LIVE_BLOCKS, ReplyView
from flue_tui.tui.widgets.replymd import FrozenMarkdown
from flue_tui.ui.transcript import ReplyEntry
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for

SECTION = (
    "## Section {i}\n\n"
    "A paragraph with **bold**, *italic* and `code`, long enough to wrap once or twice at eighty "
    "columns so that wrapping is compared too.\n\n"
    "- first item\n- second item with `code`\n  continued\n- third\n\n"
    "1. one\n\n2. two (a loose list: its blank lines are cut points)\n\n3. three\n\n"
    "- [ ] a task\n- [x] a done task\n\n"
    "```python\ndef f(x):\n\n    return x + {i}\n```\n\n"
    "| name | value |\n| --- | --- |\n| a | {i} |\n| b | 2 |\n\n"
    "> a quote\n\n"
)
# Enough blocks for two frozen segments and a live tail.
LONG_MD = "".join(SECTION.format(i=i) for i in range(7)) + "The end."


def _screen(app) -> list[list[tuple[str, object]]]:
    """Every cell run on screen with its style: what the user sees, colours included."""
    return [[(seg.text, seg.style) for seg in strip] for strip in app.screen._compositor.render_strips()]


async def test_streamed_long_markdown_ends_as_a_one_shot_render(make_app, fakellm):
    assert LONG_MD.count("\n\n") > 2 * LIVE_BLOCKS
    # 8 characters a chunk at 2,000 chunks/s: the reply reaches the view over a dozen flushes.
    fakellm.script(Turn(text=LONG_MD, tokens_per_second=2000))
    app = make_app()
    async with app.run_test(size=(80, 400)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a long markdown answer")
        await idle(pilot)
        entry = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
        assert entry.text == LONG_MD
        streamed_view = entry.view
        assert isinstance(streamed_view, ReplyView)
        assert list(streamed_view.query(FrozenMarkdown)), "long enough to have frozen segments"
        await pilot.pause(0.1)
        streamed = _screen(app)
        # The same transcript shown again: every view is made anew from the finished text.
        await app.conversation.show(app.transcript)
        await wait_for(pilot, lambda: entry.view is not streamed_view and entry.view.shown == len(LONG_MD))
        for _ in range(3):
            await pilot.pause(0.1)
        assert _screen(app) == streamed


async def test_a_whole_reply_is_drawn_without_waiting_out_the_pacing_of_heavy_frames(make_app, fakellm):
    # While text keeps coming, a flush waits at least the last frame's CPU (tui/rendering.py), so
    # heavy frames do not run back to back; the frame with the reply's last token did too, up to
    # a heavy frame's CPU after the reply had ended.
    text = "The first words, " + "then the rest of the answer " * 8 + "and the end."
    rest = threading.Event()
    fakellm.script(Turn(text=text, stall_after=3, hold=rest))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "answer")
        await wait_for(pilot, lambda: "The first" in screen_text(pilot.app))
        await wait_for(pilot, lambda: app._flush_timer is None and not app._flushing)
        await pilot.pause()
        app._frame_s = 3600.0  # as if the last frame had cost an hour of CPU
        rest.set()
        await wait_for(pilot, lambda: "and the end." in screen_text(pilot.app), timeout=60)
        await idle(pilot, timeout=60)


def test_flushes_keep_their_pace_and_one_after_a_quiet_spell_goes_at_once():
    from flue_tui.ui.pacing import MIN_WAIT_S, flush_wait

    assert flush_wait(last=10.0, pace=0.066, now=10.016) == pytest.approx(0.05)  # paced from the last flush
    assert flush_wait(last=10.0, pace=0.066, now=12.0) == MIN_WAIT_S  # quiet: at once (never a 0 interval)
    assert flush_wait(last=-1.0e9, pace=0.25, now=0.0) == MIN_WAIT_S  # nothing flushed yet


async def test_what_follows_a_quiet_spell_is_drawn_without_waiting_a_whole_interval(make_app, fakellm, monkeypatch):
    # A reply's first token (here: the prompt's own line) used to wait FLUSH_S after it arrived,
    # even when nothing had been drawn for a long time.
    from flue_tui.tui import rendering

    fakellm.script(Turn(text="An answer."))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app._flush_timer is None and not app._flushing)
        monkeypatch.setattr(rendering, "FLUSH_S", 3600.0)  # an interval no test would wait out
        app._flushed_at = -1.0e9  # the last flush long ago
        await submit(pilot, "a question after a pause")
        await wait_for(pilot, lambda: "a question after a pause" in screen_text(pilot.app), timeout=60)
