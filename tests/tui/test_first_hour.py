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


async def test_the_welcome_comes_with_the_input_box_not_after_the_session(fakellm, work: Path, monkeypatch):
    """The welcome, the session's name and mode used to arrive 2-3 s after the input box (once the
    session had started). The trust question holds the start here: the welcome is already drawn
    behind it, and worded again with the mode the trusted project file sets."""
    from flue_tui.config.settings import Settings
    from flue_tui.runtime.start import SessionOptions
    from flue_tui.tui.app import FlueApp
    from flue_tui.tui.screens.trust import TrustScreen
    from flue_tui.ui.transcript import NoticeEntry

    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (work / ".flue").mkdir()
    (work / ".flue" / "config.toml").write_text('[permissions]\nmode = "accept-edits"\n')
    settings = Settings.from_env(model="openai/fake", cwd=str(work), interactive=True)
    app = FlueApp(settings, None, sessions=SessionOptions(persist=False))

    def welcome() -> NoticeEntry | None:
        found = [e for e in app.transcript.entries if isinstance(e, NoticeEntry) and e.level == "welcome"]
        return found[0] if len(found) == 1 else None

    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.first_frame_at is not None)
        first = welcome()  # in the first frame, mounted with the input box
        assert first is not None and first.view is not None  # its mode is said once read, a moment later
        await wait_for(pilot, lambda: isinstance(app.screen, TrustScreen) and "Trust this project?" in screen_text(app))
        entry = welcome()
        assert app.session is None and entry is not None and "openai/fake · ask mode" in entry.text
        await wait_for(pilot, lambda: entry.view is not None and entry.view.is_attached)  # drawn behind the question
        assert "new session" in app.status_bar.left.render().plain  # type: ignore[union-attr]
        await pilot.press("y")
        await ready(pilot)
        await wait_for(pilot, lambda: "accept-edits mode" in screen_text(app))
        entry = welcome()
        assert entry is not None and "openai/fake · accept-edits mode" in entry.text  # one welcome, worded again
        assert "Trusted" in screen_text(app), screen_text(app)  # said before the session started, still there


async def test_an_80x24_edit_approval_gives_the_diff_what_the_screen_has_left(make_app, fakellm, work: Path):
    """Only the diff's header and about four lines showed; the added lines had to be scrolled to."""
    from flue_tui.tui.screens.approval import ApprovalScreen

    (work / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    added = "".join(f"\nb{i}" for i in range(1, 9))
    fakellm.script(
        [
            Turn(calls=[Call("edit", {"path": "notes.txt", "oldText": "beta", "newText": "beta" + added})]),
            Turn(text="Edited."),
        ]
    )
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "edit notes")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and "Allow once" in screen_text(app))
        await wait_for(pilot, lambda: app.screen.query_one("#approval-choices").region.height >= 5)
        text = screen_text(app)
        shown = [f"b{i}" for i in range(1, 9) if f"+b{i}" in text.replace(" ", "")]
        assert len(shown) == 8 and "gamma" in text, text  # the whole change, its context too
        assert app.screen.query_one("#approval-choices").region.bottom <= 24
        await pilot.press("3")  # the note field opens: the diff gives it room
        note = await wait_for(
            pilot, lambda: (n := app.screen.query_one("#approval-note")).display and n.region.height and n
        )
        assert note.region.bottom <= 24, note.region


async def test_a_resumed_commands_tail_is_the_one_drawn_live(make_app, fakellm):
    """A resumed `git status` block showed another set of lines than live (a blank line dropped)."""
    from flue_tui.runtime.start import SessionOptions
    from flue_tui.ui.transcript import ToolEntry

    command = "printf 'On branch main\\n\\nChanges:\\n\\tmodified: a.py\\n\\nUntracked:\\n\\tb.txt\\n\\tc.txt\\n\\nno changes added\\n'"
    fakellm.script([Turn(calls=[Call("bash", {"command": command})]), Turn(text="That is the status.")])

    def block(app) -> str:
        [entry] = [e for e in app.transcript.entries if isinstance(e, ToolEntry)]
        assert entry.view is not None
        return entry.view.render().plain

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "status please")
        await idle(pilot)
        live = block(app)
        sid = app.session.id
    assert "… 4 more lines above" in live and "\n    \n" in live, live  # blank lines kept
    resumed = make_app(options=SessionOptions(resume=sid))
    async with resumed.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "That is the status." in screen_text(resumed))
        assert block(resumed) == live
