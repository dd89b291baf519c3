"""The app's first screen and its no-key screen (issue 17, items 9 and 10), and the turn-end
notification: a fresh session is greeted (directory, model, mode, sandbox, tips, /init when there is
no AGENTS.md), a resumed one is not; a prompt that could only fail for want of a key is refused at
once and stays in the input; OSC 9 + BEL are written when a turn ends unfocused, never focused or off."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from flue_tui.runtime.start import SessionOptions
from flue_tui.ui.transcript import NoticeEntry
from tests.fakellm import Turn
from tests.tui.conftest import idle, ready, screen_text, status_bar, submit, wait_for


def _welcome(app) -> list[str]:
    return [e.text for e in app.transcript.entries if isinstance(e, NoticeEntry) and e.level == "welcome"]


async def test_a_fresh_session_is_welcomed_and_a_resumed_one_is_not(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="Hi there.")])
    app = make_app(options=SessionOptions(name="greeted"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "Welcome to flue" in screen_text(app))
        [text] = _welcome(app)
        lines = text.splitlines()
        assert len(lines) <= 6 and all(len(line) <= 74 for line in lines)  # fits the 80-column conversation
        assert lines[0].endswith("/work")  # the directory, ~-shortened and cut from the left
        assert f"openai/fake · {app.policy().mode} mode · local sandbox" in text
        for tip in ("/help", "@file", "!cmd", "Esc", "Shift+Tab"):
            assert tip in text
        assert "Run /init to create an AGENTS.md for this repository" in text
        await submit(pilot, "hello")
        await idle(pilot)
    (work / "AGENTS.md").write_text("# Rules\n")
    app = make_app(options=SessionOptions(name="greeted"))  # the same name: resumed
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "Resumed" in screen_text(app))
        assert _welcome(app) == [] and "Welcome to flue" not in screen_text(app)
    app = make_app()  # fresh again, now with an AGENTS.md: no /init suggestion
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: _welcome(app))
        assert "/init" not in _welcome(app)[0]


async def test_no_key_prompt_is_refused_at_once_and_kept(make_app, fakellm, monkeypatch: pytest.MonkeyPatch):
    """`/model anthropic/…` without ANTHROPIC_API_KEY: the next prompt gets the no-key help at once
    (it used to be accepted and wait on "loading" for a request that could only fail) and stays in
    the input; back on a model that works, Enter sends it."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    fakellm.script([Turn(text="Sent after all.")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "/model anthropic/claude-sonnet-4-5")
        await wait_for(pilot, lambda: "No API key for anthropic/claude-sonnet-4-5" in screen_text(app))
        notices = [e.text for e in app.transcript.entries if isinstance(e, NoticeEntry)]
        help_text = next(n for n in notices if n.startswith("No API key"))
        for named in ("ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ollama_chat/", "/model", "`flue doctor`"):
            assert named in help_text
        await submit(pilot, "fix the bug please")
        await wait_for(pilot, lambda: "your prompt is kept" in screen_text(app))
        assert app.prompt.text == "fix the bug please" and not app.busy and not app.queue
        assert fakellm.requests == []
        await submit(pilot, "/model openai/fake")
        await pilot.press("end")
        app.prompt.set_text("fix the bug please")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Sent after all." in screen_text(app))
        assert "fix the bug please" in str(fakellm.requests[-1]["messages"])


async def _turn(pilot, text: str) -> None:
    pilot.app.send(text)  # not a key press: Textual takes any key as a sign the terminal has focus
    await idle(pilot)


async def test_turn_end_notifies_only_when_unfocused_and_enabled(make_app, fakellm):
    fakellm.script([Turn(text="one"), Turn(text="two"), Turn(text="three")])
    written: list[str] = []
    app = make_app()
    app.notify_write = written.append  # the bytes the terminal would get
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        await _turn(pilot, "\x1b]0;pwned\x07\x1b[2J blurred")  # the session's label comes from this prompt
        [data] = written
        assert data.startswith("\x1b]9;flue · ") and data.endswith("\x07\x07") and "done after" in data
        # The prompt's escapes are shown, not obeyed: the only ESC and BELs are the notification's own.
        assert data.count("\x1b") == 1 and data.count("\x07") == 2
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: app.app_focus)
        await _turn(pilot, "focused")
        assert len(written) == 1


async def test_notify_false_turns_it_off(make_app, fakellm):
    fakellm.script([Turn(text="one")])
    written: list[str] = []
    app = make_app(notify=False)
    app.notify_write = written.append
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        await _turn(pilot, "blurred")
        assert written == []


async def test_the_80_column_status_bar_keeps_mode_and_directory(make_app, fakellm, tmp_path: Path):
    """Issue 17 item 13: the status bar used to cut from the right, losing the mode and the
    directory first; now the directory is cut from the left and lesser parts give way."""
    fakellm.script([Turn(text="Done.")])
    deep = tmp_path / "a-rather-long-directory-name" / "with" / "several" / "levels" / "project"
    deep.mkdir(parents=True)
    app = make_app(cwd=deep, options=SessionOptions(name="fix-the-login-flow"), permission_mode="accept-edits")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await idle(pilot)
        bar = await wait_for(pilot, lambda: status_bar(app).rstrip().endswith("ready") and status_bar(app))  # redrawn
        assert "accept-edits" in bar and "/levels/project" in bar and bar.rstrip().endswith("ready"), bar
        assert len(bar) <= 80
        await pilot.resize_terminal(160, 24)
        wide = await wait_for(pilot, lambda: "fix-the-login-flow" in (bar := status_bar(app)) and bar)
        assert "a-rather-long-directory-name/with/several/levels/project" in wide  # (at most 60 characters)
        assert "accept-edits" in wide and "↑10 ↓5" in wide, wide
