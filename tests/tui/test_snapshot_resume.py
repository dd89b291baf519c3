"""SVG snapshot of a resumed session (issue 17): the task block, expanded with Ctrl+O, shows its
sub-agent's steps with their durations; the skill run reads as typed. The session is written to
the store directly, so nothing on screen depends on timing."""

from __future__ import annotations

from pathlib import Path

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.store.sessions import SessionStore
from flue_tui.tui.app import FlueApp
from tests.store.test_resume_entries import call, result
from tests.tui.conftest import idle, ready, screen_text, wait_for
from tests.tui.test_snapshots import snap_dir  # noqa: F401 - the fixture


def _stored_session(cwd: str) -> str:
    store = SessionStore.open(None)
    try:
        store.create("ses_snapresume0000000000000", cwd=cwd, model="openai/fake", title="/release-notes since v0.1")
        for m in (
            {"role": "user", "content": "do the job"},
            call(
                "t1", "task", {"prompt": "kid job: look around", "description": "look around", "agent": "flue-general"}
            ),
            result("t1", "task", "**Kid report**: notes say *hi*.", 1234),
            call("b2", "bash", {"command": "make test"}),
            result("b2", "bash", "ran 12 tests\nall passed\n", 8400),
            {"role": "assistant", "text": "All done: the kid says **hi**."},
            {
                "role": "user",
                "content": 'Run the skill named "release-notes".\n\nsince v0.1',
                "display": "/release-notes since v0.1",
            },
            {"role": "assistant", "text": "Release notes: nothing new."},
        ):
            store.append("ses_snapresume0000000000000", m)
        store.create(
            "ses_snapresumekid00000000000",
            cwd=cwd,
            parent_id="ses_snapresume0000000000000",
            parent_tool_call_id="t1",
            agent="flue-general",
        )
        for m in (
            {"role": "user", "content": "kid job: look around"},
            call("k1", "bash", {"command": "echo kid-out-1; echo kid-out-2"}),
            result("k1", "bash", "kid-out-1\nkid-out-2\n", 120),
            call("k2", "read", {"path": "notes.txt"}),
            result("k2", "read", "hi\n", 3),
            {"role": "assistant", "text": "**Kid report**: notes say *hi*."},
        ):
            store.append("ses_snapresumekid00000000000", m)
        return "ses_snapresume0000000000000"
    finally:
        store.close()


def test_snapshot_resumed_task_steps(snap_compare, snap_dir: Path):  # noqa: F811
    sid = _stored_session(str(snap_dir))
    app = FlueApp(
        Settings.from_env(model="openai/fake", cwd=str(snap_dir), permission_mode="yolo"),
        sessions=SessionOptions(resume=sid),
    )

    async def run_before(pilot) -> None:
        await ready(pilot)
        await idle(pilot)
        await wait_for(pilot, lambda: "Release notes" in screen_text(pilot.app))
        await pilot.press("ctrl+o")
        await idle(pilot)
        await wait_for(pilot, lambda: "kid-out-2" in screen_text(pilot.app))
        # The child's Markdown is laid out again once its blocks are in: its reply and the task's
        # result both read as rendered text.
        await wait_for(pilot, lambda: screen_text(pilot.app).count("Kid report: notes say hi.") == 2)
        await idle(pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=(100, 32))
