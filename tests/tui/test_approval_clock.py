"""A tool's clock does not run while it waits for approval: the live line says it waits, an allowed
call's duration starts when the tool does, and a denied call reads `denied` with no time."""

from __future__ import annotations

import time

from flue_tui.tui.screens.approval import ApprovalScreen
from flue_tui.ui.transcript import ToolEntry
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for

# Longer than the 2 s from which a finished call shows its time: a clock that ran during the
# question would show it. No assertion depends on how fast anything runs.
HOLD_S = 2.5


def _line(app, needle: str) -> str:
    return next(line for line in screen_text(app).splitlines() if needle in line)


def _entry(app, call_id: str) -> ToolEntry:
    return next(e for e in app.transcript.entries if isinstance(e, ToolEntry) and e.call_id == call_id)


async def test_no_clock_while_the_approval_waits(make_app, fakellm, work):
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "f.txt", "content": "hello\n"}, id="w1")]),
            Turn(calls=[Call("bash", {"command": "echo ran"}, id="b1")]),
            Turn(text="All done."),
        ]
    )
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-choices"))
        await pilot.pause(HOLD_S)
        assert _entry(app, "w1").waiting
        await pilot.press("3")  # deny: the note field opens
        await pilot.press("enter")

        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.request.tool_name == "bash")
        await pilot.pause(HOLD_S)
        answered = time.monotonic()
        await pilot.press("1")  # allow once
        await wait_for(pilot, lambda: _entry(app, "b1").status != "running")
        ran = time.monotonic() - answered  # the command ran inside this window, whatever its speed
        await idle(pilot)

        write = _entry(app, "w1")
        assert write.status == "error" and not write.waiting
        line = _line(app, "✗ write")
        assert line.rstrip().endswith("denied"), line  # not `error · 2.5s`
        bash = _entry(app, "b1")
        assert bash.status == "ok" and bash.duration_ms is not None
        # The wait for the answer is not in it: it fits between the answer and the end seen, which a
        # clock started at the question (HOLD_S earlier) would not.
        assert bash.duration_ms <= 1000 * ran
        assert "All done." in screen_text(app)


async def test_ctrl_c_twice_quits_while_the_dialog_waits(make_app, fakellm, work):
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo never"}, id="b1")])])
    app = make_app(permission_mode="ask")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#approval-choices"))
        await pilot.press("ctrl+c")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app._exit)  # the modal dialog no longer swallows Ctrl+C
