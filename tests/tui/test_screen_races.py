"""Two answers queued for one screen (Enter on the list and a `1` in the same read of the terminal,
a double Enter) must give one answer and leave the app and the other screens alone.

Keys are posted to the app back to back, as the driver posts a burst of input: the app forwards
both to the focused list before the first one's binding runs, so the order of Textual's queues
decides, not timing."""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import App
from textual.widgets import Input, OptionList, Static

from flue_tui.permissions.approval import Approval, ApprovalRequest
from flue_tui.tui.approvals import ask_with_dialog
from flue_tui.tui.screens.approval import ApprovalScreen
from flue_tui.tui.screens.rewind import RewindScreen
from flue_tui.ui.rewind import Point
from tests.tui.conftest import wait_for


def _request(n: int) -> ApprovalRequest:
    return ApprovalRequest(
        tool_name="bash",
        tool_use_id=f"call-{n}",
        args={"command": f"echo {n}"},
        kind="execute",
        mode="ask",
        title=f"Run echo {n}",
        body=f"echo {n}",
        body_kind="command",
        session_rules=("bash(echo *)",),
    )


class Host(App[None]):
    def compose(self):
        yield Static("main")


def _burst(app: App, *keys: str) -> None:
    for key in keys:
        app.post_message(events.Key(key, "\r" if key == "enter" else key))


async def _top_dialog(pilot, cls, check=lambda screen: True):
    def shown():
        screen = pilot.app.screen
        return screen if isinstance(screen, cls) and screen.query(OptionList) and check(screen) else None

    screen = await wait_for(pilot, shown)
    await wait_for(pilot, lambda: isinstance(pilot.app.focused, OptionList))
    return screen


async def test_enter_and_a_key_in_one_burst_answer_the_approval_once():
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        answer = asyncio.ensure_future(ask_with_dialog(app, _request(1)))
        dialog = await _top_dialog(pilot, ApprovalScreen)
        _burst(app, "enter", "1")  # Enter selects "Allow once"; the 1 was typed behind it
        await wait_for(pilot, answer.done)
        await wait_for(pilot, lambda: not dialog.is_attached)
        await pilot.pause()
        assert answer.result() == Approval("once")
        assert app._exception is None and app.return_code is None
        assert len(app.screen_stack) == 1  # the main screen is still there


async def test_a_second_answer_does_not_take_down_the_screen_beneath():
    # The agent asks while a picker is open (/rewind, /resume, /model: they open while it works),
    # so the approval dialog is on top of the picker.
    app = Host()
    points = [Point(number=1, text="message 1", has_files=True)]
    async with app.run_test(size=(100, 30)) as pilot:
        picked: asyncio.Future = asyncio.get_running_loop().create_future()
        app.push_screen(RewindScreen(points), callback=picked.set_result)
        await _top_dialog(pilot, RewindScreen)
        answer = asyncio.ensure_future(ask_with_dialog(app, _request(1)))
        await _top_dialog(pilot, ApprovalScreen)
        _burst(app, "enter", "1")
        await wait_for(pilot, answer.done)
        # The picker is still there (before: popped without an answer, its waiter hung for good).
        await _top_dialog(pilot, RewindScreen)
        assert not picked.done()
        await pilot.press("escape")
        await wait_for(pilot, picked.done)
        assert answer.result() == Approval("once") and picked.result() is None
        assert app._exception is None and len(app.screen_stack) == 1


async def test_a_double_enter_on_rewind_does_not_choose_what_to_restore():
    """The second Enter meant the message list; the list now offers what to restore, and nothing
    may be restored (code and conversation!) that the user did not pick from it."""
    app = Host()
    points = [Point(number=n, text=f"message {n}", has_files=True) for n in (1, 2, 3, 4)]
    async with app.run_test(size=(100, 30)) as pilot:
        result: asyncio.Future = asyncio.get_running_loop().create_future()
        app.push_screen(RewindScreen(points), callback=result.set_result)
        screen = await _top_dialog(pilot, RewindScreen)
        await pilot.press("end")  # message 1: the list's fourth row, past the three choices' rows
        _burst(app, "enter", "enter")
        await wait_for(pilot, lambda: screen.chosen is not None)
        await pilot.pause()
        assert app._exception is None  # before: the second Enter's row 3 indexed the 3 choices
        assert screen.chosen.number == 1
        assert not result.done() and app.screen is screen  # still asking what to restore
        assert "what to restore" in str(screen.query_one("#rewind-title", Static).render())
        await pilot.press("down", "enter")  # now a real choice: the conversation only
        await wait_for(pilot, result.done)
        assert result.result() == (1, "conversation")


async def test_the_session_list_read_after_the_picker_is_gone_is_dropped(tmp_path):
    """Esc while the picker's list was being read in a thread (a big store, `/resume` then Esc at
    once): the read finishes after the screen's widgets are gone and must not touch them. Calling
    `reload` on the dismissed picker is exactly that continuation, without a race to win."""
    from flue_tui.store.sessions import SessionStore
    from flue_tui.tui.screens.picker import SessionPicker

    store = SessionStore.open(tmp_path / "sessions.db")
    try:
        store.create("ses_01AAAAAAAAAAAAAAAAAAAAAAAA", cwd=str(tmp_path), title="fix the tests", message_count=1)
        app = Host()
        async with app.run_test(size=(100, 30)) as pilot:
            picker = SessionPicker(store, str(tmp_path))
            result: asyncio.Future = asyncio.get_running_loop().create_future()
            app.push_screen(picker, callback=result.set_result)
            await wait_for(pilot, lambda: picker.sessions and isinstance(app.focused, Input))
            await pilot.press("escape")
            await wait_for(pilot, lambda: result.done() and not picker.is_attached)
            await picker.reload()  # before: NoMatches, from a message handler, took the app down
            assert result.result() is None and app._exception is None
    finally:
        store.close()


async def test_a_store_the_picker_is_still_reading_is_closed_only_after_the_read(tmp_path):
    """`/resume` before any session (or the start-up picker) opens a store for the picker and
    closes it once answered; a list read still running in a thread then must finish first. The
    read is held on a gate here, so the order is forced, not raced."""
    import threading

    from flue_tui.store.sessions import SessionStore
    from flue_tui.tui.screens.picker import SessionPicker

    gate, entered = threading.Event(), threading.Event()

    class HeldStore(SessionStore):
        def list_sessions(self, *args, **kwargs):
            entered.set()
            gate.wait(120)
            return super().list_sessions(*args, **kwargs)

    store = HeldStore.open(tmp_path / "sessions.db")
    app = Host()
    async with app.run_test(size=(100, 30)):
        picker = SessionPicker(store, str(tmp_path))
        app.push_screen(picker)
        # Not pilot.pause: it waits for the screen's messages, and the picker's mount is held.
        assert await asyncio.to_thread(entered.wait, 120)
        app.pop_screen()  # gone while its list is being read
        settled = asyncio.ensure_future(picker.settled())
        await asyncio.sleep(0.05)  # not a wait for anything: the gate holds the read whatever the time
        assert not settled.done()  # the read is still running: closing now would break it
        gate.set()
        await asyncio.wait_for(settled, 120)
        store.close()
        assert app._exception is None
