"""Fixtures for the tool tests: a sandbox rooted in tmp_path, a context, process probes."""

from __future__ import annotations

import ctypes
import os
import time

import pytest

from flue_tui.sandbox.local import LocalSandbox

PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4


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


def wait_dead(pid: int, timeout: float = 60.0) -> bool:  # generous: returns as soon as it is gone
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return not pid_alive(pid)


def read_pid(path) -> int:
    deadline = time.monotonic() + 60  # generous: a loaded box may take seconds to start the command
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


@pytest.fixture
def ctx():
    from flue_tui.core.abort import AbortSignal
    from flue_tui.tools.base import ToolContext

    return ToolContext("call-1", AbortSignal())


def reset_peak_rss() -> None:
    """Reset VmHWM so earlier tests do not hide this one's peak. flue's sandbox makes the process
    non-dumpable (procguard), which hands /proc/self/clear_refs to root: for a non-root run the
    write needs the process dumpable for a moment."""
    libc = ctypes.CDLL(None)
    was = libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    finally:
        libc.prctl(PR_SET_DUMPABLE, was, 0, 0, 0)


def status_kb(field: str) -> int:
    """A `/proc/self/status` figure in kB (VmRSS, VmHWM): memory checks of the exec tests."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(field)
