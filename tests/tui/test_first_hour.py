"""Issue 30's rough edges in the app, each as a user meets it in the first hour: what a read says
it read, how an unpriced model's cost reads, where a command's output goes when the user has
scrolled up, what the first screen shows, how much of a diff an 80×24 approval shows."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


async def test_a_partial_read_says_how_much_of_the_file_it_read(make_app, fakellm, work: Path):
    (work / "timed.py").write_text("".join(f"line {i}\n" for i in range(1, 229)))  # 229 lines, the last empty
    fakellm.script(
        [
            Turn(calls=[Call("read", {"path": "timed.py", "offset": 1, "limit": 160})]),
            Turn(calls=[Call("read", {"path": "timed.py"})]),
            Turn(text="Read it."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "read timed.py")
        await idle(pilot)
        text = screen_text(app)
        assert "timed.py:1+160  160 of 229 lines" in text, text
        assert "timed.py  229 lines" in text, text  # a whole read: just the length


def _last_notice(app) -> str:
    from flue_tui.ui.transcript import NoticeEntry

    return [e.text for e in app.transcript.entries if isinstance(e, NoticeEntry)][-1]


async def test_an_unpriced_models_cost_is_never_worded_as_zero(make_app, fakellm):
    """openai/fake has no price: before the first answer nothing is claimed, after it every surface
    says "cost unknown" (the status bar said "$?", /cost and /status "$0.0000" on a fresh session),
    and /cost names the model once when a task sub-agent ran on the same one."""
    fakellm.script(
        [
            Turn(calls=[Call("task", {"prompt": "child job", "agent": "flue-general", "description": "look"})]),
            Turn(text="The child is done."),
            Turn(text="Parent done."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: "Tokens:" in _last_notice(app))
        assert _last_notice(app) == "Tokens: 0 in · 0 out"
        await submit(pilot, "/status")
        await wait_for(pilot, lambda: "Status:" in _last_notice(app))
        assert "Cost:        0 in · 0 out\n" in _last_notice(app) and "$" not in _last_notice(app)
        await submit(pilot, "delegate")
        await idle(pilot)
        assert screen_text(app).splitlines()[-1].endswith("· cost unknown  ready"), screen_text(app)
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: "Tokens:" in _last_notice(app))
        cost = _last_notice(app)
        assert "cost unknown for openai/fake: no price is known." in cost, cost
        assert "$" not in cost
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: app.session is not None and not app.session.messages and not app.ctl.starting)
        await submit(pilot, "/status")
        await wait_for(pilot, lambda: "Status:" in _last_notice(app) and "new session" in _last_notice(app))
        assert "$0" not in _last_notice(app), _last_notice(app)


async def test_a_commands_output_jumps_to_the_end_as_a_prompt_does(make_app, fakellm):
    """After PageUp twice, /status was appended below the view and nothing seemed to happen."""
    from flue_tui.ui.transcript import NoticeEntry

    fakellm.script([Turn(text="\n\n".join(f"Paragraph {i} of a long answer." for i in range(60)))])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "write a lot")
        await idle(pilot)
        await pilot.press("pageup", "pageup")
        await wait_for(pilot, lambda: "Paragraph 59" not in screen_text(app))
        await submit(pilot, "/status")

        def shown() -> bool:
            notices = [e for e in app.transcript.entries if isinstance(e, NoticeEntry) and "Status:" in e.text]
            return bool(notices) and notices[-1].view is not None and notices[-1].view.is_attached

        await wait_for(pilot, shown)
        await idle(pilot)
        assert "Status:" in screen_text(app) and "Model:" in screen_text(app), screen_text(app)
