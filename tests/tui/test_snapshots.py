"""SVG snapshots of the main screens (pytest-textual-snapshot; update with --snapshot-update).

Each app runs in a fixed directory (its path is in the status bar) against the scripted server,
and is captured once idle, so nothing on screen depends on timing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.store.sessions import SessionStore
from flue_tui.tui.app import FlueApp
from flue_tui.tui.screens.picker import SessionPicker
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import SNAPSHOT_ROOT, idle, ready, screen_text, submit, wait_for

SNAP_ROOT = SNAPSHOT_ROOT  # tests/tui/conftest.py: one run at a time uses it


@pytest.fixture
def snap_dir(request: pytest.FixtureRequest, fakellm, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = SNAP_ROOT / request.node.name.removeprefix("test_")
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return d


def _app(cwd: Path, model: str | None = "openai/fake", persist: bool = True) -> FlueApp:
    # The stored snapshots show yolo's status bar (the scripted calls run); the no-key screen has none.
    return FlueApp(
        Settings.from_env(model=model, cwd=str(cwd), permission_mode="yolo" if model else None),
        sessions=SessionOptions(persist=persist),
    )


def test_snapshot_no_api_key(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    d = SNAP_ROOT / "no_api_key"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)

    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: pilot.app.ctl.unavailable)
        await wait_for(pilot, lambda: "`flue doctor` checks the setup." in screen_text(pilot.app))
        await idle(pilot)

    assert snap_compare(_app(d, model=None, persist=False), run_before=run_before, terminal_size=(80, 24))


def test_snapshot_welcome(snap_compare, snap_dir: Path):
    """A fresh session's first screen: directory, model, mode, sandbox, tips and /init."""

    async def run_before(pilot) -> None:
        await ready(pilot)
        await wait_for(pilot, lambda: "Welcome to flue" in screen_text(pilot.app))
        await idle(pilot)

    assert snap_compare(_app(snap_dir, persist=False), run_before=run_before, terminal_size=(80, 24))


def test_snapshot_no_key_keeps_the_prompt(snap_compare, monkeypatch: pytest.MonkeyPatch):
    """A model whose key is missing: the no-key screen, and a sent prompt refused but kept in the input."""
    d = SNAP_ROOT / "no_key_keeps_the_prompt"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(var, raising=False)

    async def run_before(pilot) -> None:
        await ready(pilot)
        await submit(pilot, "fix the failing test")
        await wait_for(pilot, lambda: "your prompt is kept" in screen_text(pilot.app))
        await idle(pilot)

    assert snap_compare(_app(d, model="openai/gpt-4.1", persist=False), run_before=run_before, terminal_size=(80, 24))


SCRIPT = [
    Turn(
        reasoning="The user wants the bug fixed.\nRead first, then edit.",
        text="Let me look at the code first.",
        calls=[
            Call("read", {"path": "calc.py"}, id="call_read"),
            Call("read", {"path": "missing.py"}, id="call_missing"),
        ],
    ),
    Turn(
        calls=[Call("edit", {"path": "calc.py", "oldText": "return a - b", "newText": "return a + b"}, id="call_edit")]
    ),
    Turn(
        text="## Fixed\n\n`add` subtracted instead of adding. The fix:\n\n```python\ndef add(a, b):\n"
        "    return a + b\n```\n\n- one line changed\n- tests should pass now"
    ),
]


def _calc(d: Path) -> None:
    (d / "calc.py").write_text("def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - (b)\n")


def fixed_durations(app: FlueApp) -> None:
    """Durations vary run to run; a snapshot shows them all as 1.2s."""
    from flue_tui.ui.transcript import ToolEntry

    for entry in app.transcript.entries:
        if isinstance(entry, ToolEntry) and entry.duration_ms is not None:
            entry.duration_ms = 1200
            if entry.view is not None:
                getattr(entry.view, "header", entry.view).sync()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_conversation(snap_compare, snap_dir: Path, fakellm, size):
    _calc(snap_dir)
    fakellm.script(SCRIPT)

    async def run_before(pilot) -> None:
        await ready(pilot)
        await submit(pilot, "fix the add function in calc.py")
        await idle(pilot)

    assert snap_compare(_app(snap_dir), run_before=run_before, terminal_size=size)


def test_snapshot_tasks(snap_compare, snap_dir: Path, fakellm):
    fakellm.script(
        [
            Turn(
                match="split",
                calls=[
                    Call(
                        "task",
                        {"prompt": "list the tests", "agent": "flue-general", "description": "find tests"},
                        id="call_t1",
                    ),
                    Call(
                        "task",
                        {"prompt": "list the docs", "agent": "flue-general", "description": "find docs"},
                        id="call_t2",
                    ),
                ],
            ),
            Turn(match="list the tests", text="There are **3** test files."),
            Turn(match="list the docs", text="Two docs: README.md and NOTES.md."),
            Turn(match="split", text="Both helpers are done."),
        ]
    )

    async def run_before(pilot) -> None:
        await ready(pilot)
        await submit(pilot, "split the work")
        await idle(pilot)
        fixed_durations(pilot.app)

    assert snap_compare(_app(snap_dir), run_before=run_before, terminal_size=(100, 24))


def test_snapshot_path_completion(snap_compare, snap_dir: Path):
    for rel in ("src/app.py", "src/applet.py", "docs/app-notes.md", "node_modules/app/index.js"):
        (snap_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (snap_dir / rel).write_text("")
    (snap_dir / ".gitignore").write_text("node_modules/\n")

    async def run_before(pilot) -> None:
        await ready(pilot)
        await wait_for(pilot, lambda: pilot.app.paths.ready)
        await pilot.press(*"open ", "@", *"app")
        await wait_for(pilot, lambda: pilot.app.completion.display and pilot.app.completion.inserts)

    assert snap_compare(_app(snap_dir), run_before=run_before, terminal_size=(80, 24))


def test_snapshot_help(snap_compare, snap_dir: Path):
    async def run_before(pilot) -> None:
        await ready(pilot)
        await submit(pilot, "/help")
        await idle(pilot)

    assert snap_compare(_app(snap_dir, persist=False), run_before=run_before, terminal_size=(100, 40))


def test_snapshot_picker(snap_compare, snap_dir: Path):
    store = SessionStore.open(None)
    try:
        for i, (name, title) in enumerate(
            [
                ("auth-refactor", "move auth to middleware"),
                (None, "why is the build slow?"),
                (None, "add a --json flag"),
            ]
        ):
            info = store.create(f"ses_snapshot{i:016d}", cwd=str(snap_dir), model="openai/fake", name=name, title=title)
            stamp = f"2026-11-2{i}T10:3{i}:00.000Z"
            store.conn.execute(
                "UPDATE sessions SET updated_at = ?, created_at = ?, message_count = ? WHERE id = ?",
                (stamp, stamp, 4 * (i + 1), info.id),
            )
    finally:
        store.close()

    async def run_before(pilot) -> None:
        await ready(pilot)
        await submit(pilot, "/resume")
        picker = await wait_for(pilot, lambda: isinstance(pilot.app.screen, SessionPicker) and pilot.app.screen)
        await wait_for(pilot, lambda: picker.shown and "auth-refactor" in screen_text(pilot.app))  # drawn

    assert snap_compare(_app(snap_dir), run_before=run_before, terminal_size=(100, 24))
