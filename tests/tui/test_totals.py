"""The status bar and /cost read the session's one total, task children included, live and after
a resume (tests/test_totals.py pins the other surfaces)."""

from __future__ import annotations

from pathlib import Path

from flue_tui.runtime.start import SessionOptions
from tests.test_totals import PARENT_AND_CHILD
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


async def test_status_bar_and_cost_live_and_after_resume(make_app, fakellm, work: Path):
    (work / "notes.txt").write_text("hi\n")
    fakellm.script(PARENT_AND_CHILD)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "parent job")
        await idle(pilot)
        assert (app.router.status.input_tokens, app.router.status.output_tokens) == (900, 180)
        assert "↑900 ↓180" in screen_text(app)
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: "Tokens: 900 in · 180 out" in screen_text(app))
        sid = app.session.id
    resumed = make_app(options=SessionOptions(resume=sid))
    async with resumed.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await idle(pilot)
        assert resumed.session.id == sid
        await wait_for(pilot, lambda: "↑900 ↓180" in screen_text(resumed))


async def test_a_compaction_counts_in_the_total_but_not_as_context(fakellm):
    """The summariser's tokens are the session's (status total, /cost) but its prompt is not the
    conversation's context (the gauge)."""
    from flue_tui.ui.router import EventRouter
    from flue_tui.ui.transcript import Transcript
    from tests.agent.test_compaction import first_exchange, session_with
    from tests.fakellm import Turn

    session = session_with(fakellm, keep=5)
    router = EventRouter(Transcript(session_id=session.id), lambda: None)
    session.subscribe(router.handle)
    await first_exchange(fakellm, session)  # two turns: (10, 5) then (100, 10)
    assert router.status.context_tokens == 110
    fakellm.script([Turn(text="THE SUMMARY", usage=(5000, 40))])
    result = await session.compact()
    assert result.text == "Compacted." and (result.usage.input, result.usage.output) == (5000, 40)
    assert (
        (router.status.input_tokens, router.status.output_tokens)
        == (5110, 55)
        == (session.usage.input, session.usage.output)
    )
    assert router.status.context_tokens == 110
