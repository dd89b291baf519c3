"""The plan panel (issue 26): todo_write's checklist above the prompt, updated in place as the
model rewrites it, at 80×24 (Pilot and an SVG snapshot), and shown again on resume."""

from __future__ import annotations

import shutil
import threading

import pytest

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import SNAPSHOT_ROOT, idle, ready, screen_text, submit, wait_for

STEPS = ["Read calc.py", "Fix add()", "Run the tests"]


def _todos(*statuses: str) -> dict[str, list[dict[str, str]]]:
    return {"todos": [{"content": c, "status": s} for c, s in zip(STEPS, statuses, strict=True)]}


def _panel(app: FlueApp) -> str:
    return str(app.plan_view.render()) if app.plan_view.display else ""


async def test_the_checklist_updates_in_place_and_comes_back_on_resume(make_app, fakellm):
    hold = threading.Event()
    fakellm.script(
        [
            Turn(calls=[Call("todo_write", _todos("in_progress", "pending", "pending"), id="p1")]),
            Turn(
                text="Reading",
                stall_after=1,
                hold=hold,
                calls=[Call("todo_write", _todos("completed", "in_progress", "pending"), id="p2")],
            ),
            Turn(text="Done."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert not app.plan_view.display  # no plan, no panel
        await submit(pilot, "fix it")
        await wait_for(pilot, lambda: "▶ Read calc.py" in _panel(app))
        assert "☐ Fix add()" in _panel(app) and "0/3 done" in _panel(app)
        hold.set()
        await wait_for(pilot, lambda: "▶ Fix add()" in _panel(app))
        await idle(pilot)
        panel = _panel(app)
        assert "☑ Read calc.py" in panel and "1/3 done" in panel and panel.count("Fix add()") == 1
        assert "▶ Fix add()" in screen_text(app)  # on screen, not only composed
        sid = app.session.id

    resumed = make_app(options=SessionOptions(resume=sid), permission_mode="yolo")
    async with resumed.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "▶ Fix add()" in _panel(resumed))
        assert "1/3 done" in _panel(resumed)


def test_snapshot_plan(snap_compare, fakellm, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    d = SNAPSHOT_ROOT / request.node.name.removeprefix("test_")
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fakellm.script(
        [
            Turn(calls=[Call("todo_write", _todos("completed", "in_progress", "pending"), id="p1")]),
            Turn(text="Working on `add()` now."),
        ]
    )
    app = FlueApp(
        Settings.from_env(model="openai/fake", cwd=str(d), permission_mode="yolo"),
        sessions=SessionOptions(persist=False),
    )

    async def run_before(pilot) -> None:
        await ready(pilot)
        await submit(pilot, "fix the add function")
        await idle(pilot)
        await wait_for(pilot, lambda: "▶ Fix add()" in screen_text(pilot.app))
        from flue_tui.ui.transcript import ToolEntry

        for entry in pilot.app.transcript.entries:  # durations vary run to run
            if isinstance(entry, ToolEntry) and entry.duration_ms is not None:
                entry.duration_ms = 1200
                if entry.view is not None:
                    getattr(entry.view, "header", entry.view).sync()
        await idle(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))
