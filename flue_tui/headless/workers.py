"""Worker threads, and an exit, that never keep the process alive.

asyncio's default executor is a ThreadPoolExecutor: `asyncio.run()` joins its threads when the
loop closes, and the interpreter joins them again at exit. A tool stuck in a blocking call (a
read that never returns) then holds a SIGTERM'd `flue -p` forever, result unprinted. Here every
job runs on a daemon thread and shutting the executor down never waits: an abandoned job is
dropped with the process, and nothing flue still needs is done on these threads.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")


class DaemonExecutor(ThreadPoolExecutor):
    """A thread per job (jobs are a tool's few file operations, not a hot path), all daemons.
    A ThreadPoolExecutor only because asyncio's set_default_executor insists on one; none of its
    pool is used."""

    def __init__(self, name: str = "flue-worker") -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self._name = name
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:  # type: ignore[override]
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: Future[T] = Future()

        def work() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the future
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=work, name=self._name, daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        # Never joins: waiting is exactly what let one stuck read hold the process.
        self._closed = True


def exit_now(code: int) -> NoReturn:
    """End a signalled process at once, its output already written: flush, run the atexit
    handlers, and skip interpreter teardown (seconds of garbage collection once litellm is loaded,
    and a join of any thread still stuck), as the default SIGTERM action would have."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    atexit._run_exitfuncs()
    os._exit(code)


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
