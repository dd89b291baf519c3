"""The approval dialog with Pilot: allow once, allow for this session, deny with a note; the mode in
the status bar, Shift+Tab and /mode."""

from __future__ import annotations

from flue_tui.permissions.policy import policy_of
from flue_tui.tui.screens.approval import NOTE_PLACEHOLDER, ApprovalScreen
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, status_bar, submit, typed_ahead, wait_for


def _tool_result(fakellm, call_id: str) -> str:
    for request in fakellm.requests:
        for message in request["messages"]:
            if message.get("role") == "tool" and message.get("tool_call_id") == call_id:
                return message["content"]
    raise AssertionError(f"no result for {call_id}")


def _shown(app, check=lambda screen: True):
    """The approval dialog once it is composed (its choices exist), drawn, and passes `check`."""
    screen = app.screen
    if (
        isinstance(screen, ApprovalScreen)
        and screen.query("#approval-choices")
        and "Allow once" in screen_text(app)
        and check(screen)
    ):
        return screen
    return None


async def _dialog(pilot) -> ApprovalScreen:
    return await wait_for(pilot, lambda: _shown(pilot.app))


async def test_allow_once_allow_for_session_and_deny_with_a_note(make_app, fakellm, work):
    fakellm.script(
        [
            Turn(calls=[Call("bash", {"command": "echo one"}, id="b1")]),
            Turn(calls=[Call("bash", {"command": "echo two"}, id="b2")]),
            Turn(calls=[Call("bash", {"command": "echo three"}, id="b3")]),
            Turn(calls=[Call("write", {"path": "f.txt", "content": "hello\n"}, id="w1")]),
            Turn(text="All done."),
        ]
    )
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: " · ask" in status_bar(app))
        await submit(pilot, "go")

        dialog = await _dialog(pilot)
        assert dialog.request.body == "echo one"
        await wait_for(pilot, lambda: "waiting for your approval" in status_bar(app))
        assert "echo one" in screen_text(app) and "Allow for this session (bash(echo *))" in screen_text(app)
        await pilot.press("1")  # allow once

        dialog = await wait_for(pilot, lambda: _shown(app, lambda d: d.request.body == "echo two"))
        await pilot.press("2")  # allow `echo *` for this session: "echo three" runs without a question

        dialog = await wait_for(pilot, lambda: _shown(app, lambda d: d.request.tool_name == "write"))
        assert dialog.request.title == "Write file f.txt" and "+hello" in screen_text(app)
        await pilot.press("3")  # deny: the note field opens
        await pilot.press(*"not now")
        await pilot.press("enter")
        await idle(pilot)

        assert not isinstance(app.screen, ApprovalScreen)
        assert [_tool_result(fakellm, i) for i in ("b1", "b2", "b3")] == ["one", "two", "three"]
        assert _tool_result(fakellm, "w1") == "Permission denied: the user refused this write call. Their note: not now"
        assert not (work / "f.txt").exists()
        assert "All done." in screen_text(app)
        assert [r.text for r in policy_of(app.session).session_allow] == ["bash(echo *)"]


async def test_escape_denies_and_modes_switch(make_app, fakellm, work):
    fakellm.script([Turn(calls=[Call("bash", {"command": "touch made"}, id="b1")]), Turn(text="ok")])
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await _dialog(pilot)
        await pilot.press("escape")
        await idle(pilot)
        assert _tool_result(fakellm, "b1") == "Permission denied: the user refused this bash call."
        assert not (work / "made").exists()

        policy = policy_of(app.session)
        await pilot.press("shift+tab")
        await wait_for(pilot, lambda: " · accept-edits" in status_bar(app))
        assert policy.mode == "accept-edits" and app.settings.permission_mode == "accept-edits"
        await submit(pilot, "/mode plan")
        await wait_for(pilot, lambda: " · plan" in status_bar(app))
        assert policy.mode == "plan"
        await submit(pilot, "/mode sometimes")
        await wait_for(pilot, lambda: "Unknown permission mode 'sometimes'" in screen_text(app))


async def test_a_sub_agents_question_says_who_asks(make_app, fakellm, work):
    fakellm.script(
        [
            Turn(calls=[Call("task", {"prompt": "child job", "agent": "flue-general", "description": "look around"})]),
            Turn(match="child job", calls=[Call("bash", {"command": "echo from-child"}, id="kb")]),
            Turn(match="child job", text="Child done."),
            Turn(text="All done."),
        ]
    )
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "delegate")
        dialog = await wait_for(pilot, lambda: _shown(app))
        if dialog.request.tool_name == "task":  # ask mode may ask about the task call itself first
            await pilot.press("1")
            dialog = await wait_for(pilot, lambda: _shown(app, lambda d: d.request.tool_name == "bash"))
        assert dialog.asker == "sub-agent flue-general (look around)"
        await wait_for(pilot, lambda: "sub-agent flue-general (look around) asks: " in screen_text(app))
        await pilot.press("1")
        await idle(pilot)
        assert "All done." in screen_text(app)


async def test_a_long_diff_leaves_the_choices_and_the_note_on_an_80x24_screen(make_app, fakellm, work):
    """Issue 17 item 3: a 200-line write pushed the options and the note field off screen."""
    content = "".join(f"line {i}\n" for i in range(200))
    fakellm.script([Turn(calls=[Call("write", {"path": "big.txt", "content": content}, id="w1")]), Turn(text="ok")])
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "write it")
        dialog = await _dialog(pilot)
        choices = dialog.query_one("#approval-choices")
        await wait_for(pilot, lambda: choices.region.height >= 5)  # laid out
        assert choices.region.bottom <= 24, choices.region
        await pilot.press("3")  # deny: the note field opens below the choices
        note = await wait_for(
            pilot, lambda: (n := dialog.query_one("#approval-note")).display and n.region.height and n
        )
        assert note.region.bottom <= 24, note.region
        assert NOTE_PLACEHOLDER in screen_text(app)  # read whole at 80 columns, not cut
        await pilot.press(*"too big", "enter")
        await idle(pilot)
        assert not (work / "big.txt").exists()
        assert "too big" in str(fakellm.requests[-1]["messages"][-1])


async def test_a_command_hidden_in_an_escape_sequence_shows_in_the_transcript(make_app, fakellm, work):
    """A model's command can hide `; touch PWNED` inside an OSC sequence; the transcript's line for
    the call shows every byte of it (escapes as \\xNN), as the question did, never `echo hi` alone."""
    hidden = "echo hi \x1b]0;; touch PWNED\x07"
    fakellm.script([Turn(calls=[Call("bash", {"command": hidden}, id="b1")]), Turn(text="done")])
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await _dialog(pilot)
        assert "touch PWNED" in screen_text(app)
        await pilot.press("escape")  # deny
        await idle(pilot)
        assert "bash  echo hi \\x1b]0;; touch PWNED\\x07" in screen_text(app), screen_text(app)
    assert not (work / "PWNED").exists()


async def test_keys_typed_before_the_dialog_opened_answer_nothing(make_app, fakellm, work):
    # The user types on while the agent works; the question comes up under their fingers. Keys the
    # terminal sent before the dialog was there (stamped earlier, queued while the app was busy)
    # are dropped, as inline mode drops its type-ahead: "2" must not allow `echo *` for the session.
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo one"}, id="b1")]), Turn(text="Done.")])
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        dialog = await _dialog(pilot)
        await typed_ahead(pilot, dialog, "2", "a", "enter", "n")
        assert app.screen is dialog and not dialog.query_one("#approval-note").display
        await pilot.press("1")  # typed once the question is there: it answers
        await wait_for(pilot, lambda: "Done." in screen_text(app))
        assert _tool_result(fakellm, "b1") == "one"
        assert policy_of(app.session).session_allow == []
