"""`!command` in the app (Pilot): the user's own shell command runs through the bash tool's sandbox,
is shown as a bash block, joins the conversation for the model's next turn, is undone by /undo and
comes back on resume as the same block — with no model request of its own."""

from __future__ import annotations

from pathlib import Path

from flue_tui.agent.usershell import BUSY, INTERRUPTED, USAGE
from flue_tui.runtime.start import SessionOptions
from flue_tui.ui import rewind
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


def _users(fakellm) -> list[str]:
    return [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "user"]


async def test_bang_runs_shows_and_reaches_the_next_turn(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="I saw it.")])
    app = make_app(permission_mode="ask")  # the user's own command is never asked about
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "!echo hi-there; echo oops >&2; exit 3")
        await idle(pilot)
        text = await wait_for(pilot, lambda: "exit 3" in screen_text(app) and screen_text(app))
        assert "echo hi-there" in text and "hi-there" in text
        assert fakellm.requests == []  # no model turn of its own
        await submit(pilot, "what happened?")
        await idle(pilot)
        await wait_for(pilot, lambda: "I saw it." in screen_text(app))
        first, second = _users(fakellm)
        assert first == (
            "<bash-input>echo hi-there; echo oops &gt;&amp;2; exit 3</bash-input>\n"
            "<bash-stdout>hi-there</bash-stdout>\n<bash-stderr>oops</bash-stderr>\n"
            "<bash-exit-code>3</bash-exit-code>"
        )
        assert second == "what happened?"
        sid = app.session.id

    resumed = make_app(options=SessionOptions(resume=sid))
    async with resumed.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await idle(pilot)
        text = await wait_for(pilot, lambda: "I saw it." in screen_text(resumed) and screen_text(resumed))
        assert "echo hi-there" in text and "exit 3" in text
        assert "<bash-input>" not in text  # drawn as the block it was, not as its message


async def test_bang_usage_env_and_undo(make_app, fakellm, work: Path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    (work / "keep.txt").write_text("precious\n")
    fakellm.script([])
    app = make_app(permission_mode="plan")  # plan mode does not hold back the user's own command
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "!   ")
        await wait_for(pilot, lambda: USAGE[:30] in screen_text(app))
        await submit(pilot, "!env")
        await idle(pilot)
        said = app.session.messages[-1].content
        assert "OPENAI_API_KEY" not in said and "sk-test" not in said and "sk-ant-secret-value" not in said
        await submit(pilot, "!rm keep.txt")
        await idle(pilot)
        assert not (work / "keep.txt").exists()
        await submit(pilot, "/undo")
        await wait_for(pilot, lambda: (work / "keep.txt").exists())
        assert (work / "keep.txt").read_text() == "precious\n"
        assert fakellm.requests == []
        # /rewind lists a `!command` as typed, not as the message the model reads.
        listed = [p.text for p in rewind.points(app.session, app.ctl.store, str(work))]
        assert listed == ["!env", "!rm keep.txt"]


async def test_bang_deny_rule_refuses(make_app, fakellm, work: Path):
    fakellm.script([])
    app = make_app(permission_mode="yolo", disallowed_tools=["Bash(rm:*)"])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        (work / "x").write_text("x")
        await submit(pilot, "!rm x")
        await idle(pilot)
        await wait_for(pilot, lambda: "blocked by the rule" in screen_text(app))
        assert (work / "x").exists()
        assert app.session.messages == []


async def test_bang_output_escapes_and_size_are_contained(make_app, fakellm, work: Path):
    fakellm.script([])
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, r"!printf 'a\033]0;pwned\007b\033[2Jc\n'; seq 1 200000")
        await idle(pilot)
        await wait_for(pilot, lambda: "200000" in screen_text(app))
        message = app.session.messages[-1].content
        assert len(message) < 60_000  # capped like the bash tool's output (its end kept)
        assert message.rstrip().endswith(
            "200000</bash-stdout>\n<bash-stderr></bash-stderr>\n<bash-exit-code>0</bash-exit-code>"
        )
        entry = app.transcript.entries[-1]
        assert "\x1b" not in (entry.result_text or "")
        assert all("\x1b" not in line for line in entry.tail.last(500)) if entry.tail else True


async def test_bang_escape_interrupts_and_busy_refuses(make_app, fakellm, work: Path):
    fakellm.script([])
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "!echo started; sleep 600")
        await wait_for(pilot, lambda: app.session.running and "started" in screen_text(app))
        await submit(pilot, "!echo second")
        await wait_for(pilot, lambda: BUSY[:30] in screen_text(app))
        await pilot.press("escape")
        await idle(pilot)
        await wait_for(pilot, lambda: INTERRUPTED[:30] in screen_text(app))
        assert app.session.messages == []  # a stopped command is not added to the conversation
        assert fakellm.requests == []
