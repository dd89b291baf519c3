"""The status bar and /cost read the session's one total, task children included, live and after
a resume (tests/test_totals.py pins the other surfaces)."""

from __future__ import annotations

from pathlib import Path

from flue_tui.session_start import SessionOptions
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
