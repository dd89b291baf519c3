"""/undo and /rewind in the app (Pilot): the files go back to a turn's checkpoint, and a
conversation rewind continues on a fork with the chosen message back in the prompt."""

from __future__ import annotations

from pathlib import Path

from flue_tui.tui.screens.rewind import RewindScreen
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


async def test_undo_then_rewind_code_and_conversation(make_app, fakellm, work: Path):
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "a.txt", "content": "one\n"}, id="w1")]),
            Turn(text="Made."),
            Turn(calls=[Call("edit", {"path": "a.txt", "oldText": "one", "newText": "two"}, id="e1")]),
            Turn(text="Changed."),
            Turn(text="Changed again."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "make a")
        await idle(pilot)
        await submit(pilot, "change a")
        await idle(pilot)
        assert (work / "a.txt").read_text() == "two\n"
        original = app.session.id

        await submit(pilot, "/undo")
        await wait_for(pilot, lambda: (work / "a.txt").read_text() == "one\n")

        (work / "a.txt").write_text("two\n")
        app.prompt.set_text("")
        await pilot.press("escape", "escape")  # Esc Esc on the empty prompt: the same picker as /rewind
        screen = await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen) and app.screen)
        assert [p.number for p in screen.points] == [2, 1]  # newest first
        assert "no file checkpoint" not in screen_text(app)  # every point has files: nothing to explain
        await pilot.press("enter")  # message 2
        await wait_for(pilot, lambda: screen.chosen is not None)
        await pilot.press("enter")  # restore code and conversation
        await wait_for(pilot, lambda: app.session is not None and app.session.id != original)
        await wait_for(pilot, lambda: app.prompt.text == "change a")
        assert (work / "a.txt").read_text() == "one\n"
        await idle(pilot)
        await pilot.press("enter")  # send message 2 again, on the fork
        await idle(pilot)
        sent = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "user"]
        assert sent == ["make a", "change a"]
        store = app.ctl.store
        assert store.get(app.session.id).forked_from == original
        assert [p.text for p in store.user_prompts(original)] == ["make a", "change a"]


async def test_a_rewind_that_would_replace_others_files_asks_and_undo_says_rewind_undone(make_app, fakellm, work: Path):
    """Issue 23: files the session's turns did not leave are named in a question before a rewind
    replaces them (no: nothing changes). Issue 30: /undo after a /rewind says "Rewind undone" and
    offers app commands, never a shell command with a session id."""
    from flue_tui.tui.screens.confirm import ConfirmScreen

    fakellm.script([Turn(calls=[Call("write", {"path": "a.txt", "content": "one\n"}, id="w1")]), Turn(text="Made.")])
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "make a")
        await idle(pilot)
        (work / "other.txt").write_text("another session's work\n")

        await submit(pilot, "/rewind 1 code")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await wait_for(pilot, lambda: "    other.txt" in screen_text(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: "Nothing was changed" in screen_text(app))
        assert (work / "other.txt").exists() and (work / "a.txt").exists()

        await submit(pilot, "/rewind 1 code")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: not (work / "other.txt").exists() and not (work / "a.txt").exists())
        await wait_for(pilot, lambda: "Also replaced: other.txt" in screen_text(app))

        await submit(pilot, "/undo")
        await wait_for(pilot, lambda: "Rewind undone" in screen_text(app))
        assert (work / "other.txt").read_text() == "another session's work\n" and (work / "a.txt").exists()
        assert "flue sessions" not in screen_text(app) and "/redo" in screen_text(app)
        await submit(pilot, "/redo")
        await wait_for(pilot, lambda: "Rewind redone" in screen_text(app))
        assert not (work / "other.txt").exists() and not (work / "a.txt").exists()


async def test_undo_on_the_fork_puts_back_the_files_a_code_and_conversation_rewind_replaced(
    make_app, fakellm, work: Path
):
    """The default rewind (code and conversation) continues on a fork; /undo there is the way back
    /help names ("undo the last rewind"), so it puts the files back, never "nothing to undo" (or a
    further rewind of the fork's last turn)."""
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "a.txt", "content": "one\n"}, id="w1")]),
            Turn(text="Made."),
            Turn(calls=[Call("write", {"path": "b.txt", "content": "two\n"}, id="w2")]),
            Turn(text="Made b."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "make a")
        await idle(pilot)
        await submit(pilot, "make b")
        await idle(pilot)
        original = app.session.id

        await submit(pilot, "/rewind 2")
        await wait_for(pilot, lambda: app.session is not None and app.session.id != original)
        await wait_for(pilot, lambda: app.prompt.text == "make b")
        assert not (work / "b.txt").exists() and (work / "a.txt").exists()
        app.prompt.set_text("")
        await submit(pilot, "/undo")
        await wait_for(pilot, lambda: "Rewind undone" in screen_text(app))
        assert (work / "b.txt").read_text() == "two\n" and (work / "a.txt").read_text() == "one\n"
        await submit(pilot, "/redo")
        await wait_for(pilot, lambda: "Rewind redone" in screen_text(app))
        assert not (work / "b.txt").exists() and (work / "a.txt").exists()


async def test_the_rewind_legend_explains_no_files_only_when_a_point_has_none(make_app, work: Path):
    # A point without a file checkpoint (a session from before them, a folder that could not be
    # snapshotted) is marked "(no files)", and only then does the legend say what that means.
    from flue_tui.ui.rewind import Point

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for points, explained in (
            ([Point(1, "first", True), Point(2, "second", True)], False),
            ([Point(1, "first", False), Point(2, "second", True)], True),
        ):
            screen = RewindScreen(points)
            app.push_screen(screen)
            text = await wait_for(pilot, lambda: "Rewind to just before" in (t := screen_text(app)) and t)
            assert ("'(no files)': no file checkpoint" in text) is explained
            assert ("  (no files)" in text) is explained
            await pilot.press("escape")
            await wait_for(pilot, lambda shown=screen: app.screen is not shown)
