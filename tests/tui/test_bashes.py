"""Background commands in the app (issue 26): the status bar counts them, `/bashes` lists, tails and
stops them, and nothing is left running."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm.script import Call, Turn
from tests.tools.conftest import pid_alive
from tests.tui.conftest import idle, ready, screen_text, status_bar, submit, wait_for

SERVER = "echo $$ > pid; echo listening on 5173; while [ ! -e never ]; do sleep 0.2; done"


async def test_the_status_bar_counts_them_and_bashes_tails_and_kills(make_app, fakellm, work: Path):
    fakellm.script(
        [
            Turn(calls=[Call("bash_background", {"command": SERVER, "description": "dev server"}, id="s")]),
            Turn(text="The dev server is starting."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "start the dev server")
        await idle(pilot)
        await wait_for(pilot, lambda: "1 bg" in status_bar(app))
        await wait_for(pilot, lambda: (work / "pid").exists() and (work / "pid").read_text().strip())
        pid = int((work / "pid").read_text())
        await submit(pilot, "/bashes")
        await wait_for(pilot, lambda: "bg1  running" in screen_text(app))
        await submit(pilot, "/bashes tail bg1")
        await wait_for(pilot, lambda: "listening on 5173" in screen_text(app))
        await submit(pilot, "/bashes kill bg1")
        await wait_for(pilot, lambda: "1 bg" not in status_bar(app))
        await wait_for(pilot, lambda: not pid_alive(pid))
        await submit(pilot, "/bashes")
        await wait_for(pilot, lambda: "bg1  exited with code 143" in screen_text(app))


BUILD = "echo building; while [ ! -e go ]; do sleep 0.1; done; echo built"


async def test_one_that_ends_gets_a_line_and_the_idle_model_a_follow_up_turn(make_app, fakellm, work: Path):
    fakellm.script(
        [
            Turn(calls=[Call("bash_background", {"command": BUILD}, id="s")]),
            Turn(text="The build is running."),
            Turn(text="The build finished: built."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "start the build")
        await wait_for(pilot, lambda: "The build is running." in screen_text(app))
        await idle(pilot)
        assert len(fakellm.requests) == 2  # nothing ended yet: no follow-up
        (work / "go").write_text("")
        await wait_for(pilot, lambda: "The build finished: built." in screen_text(app))
        await idle(pilot)
        text = screen_text(app)
        assert f"Background command bg1 ({BUILD}) exited with code 0." in " ".join(text.split())  # wrapped at 80
        assert "<signal" not in text  # the model's message is not shown as if the user typed it
        told = fakellm.requests[2]["messages"][-1]
        assert told == {
            "role": "user",
            "content": '<signal type="background_command">\n'
            f"Background command bg1 ({BUILD}) exited with code 0. Read what it printed with bash_output (id bg1).\n"
            "</signal>",
        }
        assert "1 bg" not in status_bar(app)
        assert len(fakellm.requests) == 3
        assert app.ctl.store.list_sessions(str(work))[0].title == "start the build"  # the signal titles nothing
        from flue_tui.ui.rewind import points

        titles = [p.text for p in points(app.session, app.ctl.store, str(work))]
        assert titles == ["start the build", "(background commands ended: bg1)"]  # /rewind's list


async def test_a_model_that_keeps_starting_commands_gets_three_follow_ups_then_waits(make_app, fakellm, work: Path):
    quick = [Turn(calls=[Call("bash_background", {"command": "true"})]), Turn(text="waiting for it")]
    fakellm.script([*quick * 5, Turn(text="both ended")])
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: "Background command bg4 (true) exited with code 0." in screen_text(app))
        await idle(pilot)
        assert len(fakellm.requests) == 8  # the prompt's two, then three follow-ups of two: no fourth
        assert not app.busy
        await submit(pilot, "and now?")  # the user speaks: follow-ups may start again
        await wait_for(pilot, lambda: "both ended" in screen_text(app))
        await idle(pilot)
        last = fakellm.requests[-1]["messages"][-1]["content"]
        assert last.startswith('<signal type="background_command">\nBackground command bg5 (true) exited')
        # bg4's end, untold by a follow-up, came with the model's next background-command result.
        started = fakellm.requests[9]["messages"][-1]
        assert started["role"] == "tool" and started["content"].endswith(
            "Background command bg4 (true) exited with code 0."
        )
