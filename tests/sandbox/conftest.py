"""Fixtures for the local sandbox tests: the same sandbox and process probes as the tool tests."""

from __future__ import annotations

from tests.tools.conftest import kill_leftovers, pid_alive, read_pid, reset_peak_rss, sandbox, status_kb, wait_dead

__all__ = ["kill_leftovers", "pid_alive", "read_pid", "reset_peak_rss", "sandbox", "status_kb", "wait_dead"]
