"""Startup: the first frame comes before litellm is imported; litellm then warms in the background."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp
imported = "litellm" in sys.modules

async def main():
    app = FlueApp(Settings.from_env(model="openai/fake", cwd=sys.argv[1]), sessions=SessionOptions(persist=False))
    async with app.run_test(size=(80, 24)) as pilot:
        while app.first_frame_at is None:
            await pilot.pause(0.005)
        first = app.first_frame_at - t0
        while "litellm.main" not in sys.modules or app.session is None:
            await pilot.pause(0.05)
        print(json.dumps({"imported_with_app": imported, "at_first_frame": app.litellm_loaded_at_first_frame,
                          "first_frame_s": first}))

asyncio.run(main())
"""


def test_first_frame_before_litellm(tmp_path: Path):
    # A litellm-path model: it is warmed after the first frame (a direct-path model never loads it:
    # tests/test_direct_front_ends.py).
    env = dict(os.environ, OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="sk-test", FLUE_TRANSPORT="litellm")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,  # generous, as run_flue: the child imports litellm, slow on a loaded box
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["imported_with_app"] is False
    assert result["at_first_frame"] is False


HELD = r"""
import asyncio, gc, sys
from flue_tui.core import heap
heap.HOLD_LIMIT_S = 600  # the hang bound must not end the hold on a slow, loaded machine
heap.hold_collections()  # what the `flue` entry does before importing the app
from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp

async def main():
    app = FlueApp(Settings.from_env(model="openai/fake", cwd=sys.argv[1]), sessions=SessionOptions(persist=False))
    held = not gc.isenabled()
    during_start = []  # collections while the app was starting (the frame, the session's start)
    gc.callbacks.append(lambda phase, info: during_start.append(info) if phase == "start" and app.launching else None)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.launching or app.session is None:
            await pilot.pause(0.005)
        print(held, len(during_start), gc.isenabled())
        app.exit()

asyncio.run(main())
"""


def test_the_collector_is_held_until_the_first_session_has_started(tmp_path: Path):
    env = dict(
        os.environ, OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY="sk-test", FLUE_HOME=str(tmp_path / "home")
    )
    out = subprocess.run(
        [sys.executable, "-c", HELD, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "0", "True"]
