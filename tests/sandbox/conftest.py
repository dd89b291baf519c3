"""Fixtures for the local sandbox tests: a sandbox rooted in tmp_path and process probes."""

from __future__ import annotations

import os
import time

import pytest

from flue_tui.sandbox.local import LocalSandbox


@pytest.fixture
def sandbox(tmp_path) -> LocalSandbox:
    return LocalSandbox(str(tmp_path))


def pid_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return not pid_alive(pid)


def read_pid(path) -> int:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return int(text)
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    raise AssertionError(f"no pid written to {path}")


@pytest.fixture
def kill_leftovers():
    """Pids registered here get SIGKILLed after the test so a failing test leaves no orphans."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
