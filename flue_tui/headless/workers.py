"""Signals during a headless start-up. The daemon executor and `exit_now` are every front end's:
they live in runtime/workers.py and are re-exported here for print mode."""

from __future__ import annotations

import signal

from flue_tui.runtime.workers import DaemonExecutor, exit_now

__all__ = ["DaemonExecutor", "Signalled", "exit_now", "stop_start_up_on_signals"]


class Signalled(BaseException):
    """SIGINT/SIGTERM before the run's event loop took the signals over (flags, config, opening the
    session): raised where the main thread is, so start-up stops there and the result is still written.
    A BaseException, so no `except Exception` on the way swallows it."""

    def __init__(self, code: int, fmt: str | None, model: str | None) -> None:
        super().__init__(code)
        self.code, self.fmt, self.model = code, fmt, model


def stop_start_up_on_signals(fmt: str | None, model: str | None) -> None:
    """From now until the run's loop installs its own handlers, SIGINT/SIGTERM raise Signalled."""

    def handler(signum: int, frame: object) -> None:
        raise Signalled(128 + signum, fmt, model)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, handler)
