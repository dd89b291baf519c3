"""A reply with hundreds of tool calls (a hostile or looping provider: one 4 MiB stream line holds
tens of thousands) runs them at most MAX_RUNNING at a time. Before, every call of a batch started at
once: as many shells as the provider named, read-only ones unasked even in ask mode."""

from __future__ import annotations

import threading

from flue_tui.agent.toolrun import MAX_RUNNING
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from tests.permissions.conftest import run_calls
from tests.security.test_orphans import _wait_for


async def test_a_batch_of_many_commands_runs_a_bounded_number_at_once(tmp_path):
    log, go = tmp_path / "log", tmp_path / "go"
    command = f"echo s >> {log}; while [ ! -e {go} ]; do sleep 0.05; done; echo e >> {log}"
    calls = [("bash", {"command": command}) for _ in range(MAX_RUNNING * 3)]

    def release() -> None:  # once as many as may run have started
        _wait_for(lambda: log.exists() and log.read_text().count("s") >= MAX_RUNNING, 120)
        go.touch()

    threading.Thread(target=release, daemon=True).start()
    results = await run_calls(builtin_tools(LocalSandbox(str(tmp_path))), None, *calls, cwd=str(tmp_path))
    assert all(not r.is_error for r in results)
    running = peak = 0
    for mark in log.read_text().split():
        running += 1 if mark == "s" else -1
        peak = max(peak, running)
    assert peak <= MAX_RUNNING, peak
