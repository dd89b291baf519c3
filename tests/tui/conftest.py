"""TUI test helpers: the real app, a real Session and litellm, against the scripted server."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp

SNAPSHOT_ROOT = Path("/tmp/flue-snapshots")


def screen_text(app: Any) -> str:
    """The plain text of the whole screen, as a user would read it."""
    return "\n".join(s.text.rstrip() for s in app.screen._compositor.render_strips())


def status_bar(app: Any) -> str:
    """The screen's last line (the status bar); "" while a new screen has not been drawn yet."""
    lines = screen_text(app).splitlines()
    return lines[-1] if lines else ""


async def wait_for(pilot: Any, cond: Callable[[], Any], timeout: float = 120.0, step: float = 0.02) -> Any:
    """Let the app run until cond() is truthy; fails the test with the screen on timeout (generous: a
    loaded 2-core machine may still be importing litellm in the background). A cond() that raises
    reads a screen between two states (a pushed screen not drawn yet: no lines to index) and is
    asked again; its last error is the timeout's cause."""
    deadline = time.monotonic() + timeout
    error: Exception | None = None
    while True:
        try:
            value = cond()
        except Exception as exc:  # noqa: BLE001 - raised again, as the cause, if it never settles
            value, error = None, exc
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting; screen was:\n{screen_text(pilot.app)}") from error
        await pilot.pause(step)


async def ready(pilot: Any) -> FlueApp:
    app = pilot.app
    await wait_for(pilot, lambda: app.session is not None or app.ctl.unavailable)
    return app


async def loaded(pilot: Any) -> FlueApp:
    """Wait until the app's background loads (prompt history, path index) are done: they start once
    the first session start is over (`launching` ends), in the "startup" worker, which leaves the
    app's workers when it ends."""
    app = await ready(pilot)
    await wait_for(pilot, lambda: not app.launching and not any(w.group == "startup" for w in app.workers))
    return app


async def idle(pilot: Any, timeout: float = 120.0) -> None:
    """Wait until the agent is done and every change is on screen."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: (
            not app.busy and not app.queue and not app.router.pending and app._flush_timer is None and not app._flushing
        ),
        timeout,
    )
    await pilot.pause()


async def submit(pilot: Any, text: str) -> None:
    app = pilot.app
    app.prompt.set_text(text)
    await pilot.press("enter")


@pytest.fixture(autouse=True)
def _snapshot_dirs_locked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Snapshot tests run in fixed directories under /tmp/flue-snapshots (their path is on screen),
    which they empty first: a second test run on the same machine (two CI jobs at once) waits for
    this one's test instead of deleting its directory under it."""
    if "snap_compare" not in request.fixturenames:
        yield
        return
    SNAPSHOT_ROOT.mkdir(parents=True, exist_ok=True)
    with open(SNAPSHOT_ROOT / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def _litellm_imported() -> None:
    """Import litellm once for the whole run (3-20 s on a busy 2-core box), so no test's first
    request waits for it. The startup test checks the lazy import in a fresh process instead."""
    from flue_tui.model.loader import get_litellm

    get_litellm()


@pytest.fixture
def work(tmp_path: Path) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    return d


@pytest.fixture
def make_app(fakellm, work: Path, monkeypatch: pytest.MonkeyPatch):
    """`make_app(prompt=None, options=...)` → a FlueApp on `work`, pointed at the scripted server."""
    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("FLUE_RETRY_BASE_MS", "5")

    def make(
        prompt: str | None = None,
        *,
        cwd: Path | None = None,
        options: SessionOptions | None = None,
        model: str = "openai/fake",
        **flags: object,
    ) -> FlueApp:
        if "permission_mode" not in flags and not flags.get("interactive"):
            flags["permission_mode"] = "yolo"  # the scripted calls run; a test of questions picks its mode
        settings = Settings.from_env(model=model, cwd=str(cwd or work), **flags)
        return FlueApp(settings, prompt, sessions=options if options is not None else SessionOptions())

    return make


async def typed_ahead(pilot, dialog, *keys: str) -> None:
    """`keys` as the terminal would have sent them before `dialog` was mounted (typed on while the
    app was busy bringing it up), each handled once this returns."""
    from textual import events

    for key in keys:
        early = events.Key(key, key if len(key) == 1 else None)
        early.time = dialog.opened_at - 0.5
        pilot.app.post_message(early)
    for _ in range(5):
        await pilot.pause()
