"""Signals during a headless start-up. The daemon executor and `exit_now` are every front end's:
they live in runtime/workers.py and are re-exported here for print mode."""

from __future__ import annotations

import signal
import sys
from typing import Any

from flue_tui.runtime.workers import DaemonExecutor, exit_now

__all__ = ["DaemonExecutor", "Signalled", "exit_now", "signalled", "stop_start_up_on_signals"]

_received: list[Signalled] = []  # every signal the start-up handler took, even if its raise got lost


class Signalled(BaseException):
    """SIGINT/SIGTERM before the run's event loop took the signals over (flags, config, opening the
    session): raised where the main thread is, so start-up stops there and the result is still written.
    A BaseException, so no `except Exception` on the way swallows it."""

    def __init__(self, code: int, fmt: str | None, model: str | None) -> None:
        super().__init__(code)
        self.code, self.fmt, self.model = code, fmt, model


_reported = sys.unraisablehook


def _unraisable(info: Any) -> None:
    # Raised inside a callback whose errors Python only reports (importlib's module-lock weakref
    # callback, seen in CI): the signal is in `_received`, and the run stops at its next check.
    if not isinstance(info.exc_value, Signalled):
        _reported(info)


def stop_start_up_on_signals(fmt: str | None, model: str | None) -> None:
    """From now until the run's loop installs its own handlers, SIGINT/SIGTERM raise Signalled."""
    _received.clear()  # a run of its own (tests call main() more than once in one process)
    if sys.unraisablehook is not _unraisable:  # once per process, not a chain per run
        global _reported
        _reported = sys.unraisablehook
        sys.unraisablehook = _unraisable

    def handler(signum: int, frame: object) -> None:
        stop = Signalled(128 + signum, fmt, model)
        _received.append(stop)
        raise stop

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, handler)


def signalled(exc: BaseException | None = None) -> Signalled | None:
    """The start-up signal behind `exc`, or taken at all. Raised where the main thread happens to
    be, it may come back wrapped (Python 3.11 turns an exception in a class body's `__set_name__`
    into a RuntimeError, seen while `ipaddress` was being imported) or be swallowed by a library's
    `except BaseException`; neither may turn a signal into a traceback or a run that goes on."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, Signalled):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return _received[0] if _received else None
