"""Worker threads, and an exit, that never keep the process alive.

asyncio's default executor is a ThreadPoolExecutor: `asyncio.run()` joins its threads when the
loop closes, and the interpreter joins them again at exit. A job stuck in a blocking call (a read
that never returns, a thread waiting for litellm's import) then holds a quitting flue for seconds.
Here every job runs on a daemon thread and shutting the executor down never waits: an abandoned job
is dropped with the process, and nothing flue still needs is done on these threads. Every front end
(`-p`, the app, inline mode) installs it on its loop and leaves through `exit_now`.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import warnings
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
    """End the process at once, its output written and its sessions closed: flush, run the atexit
    handlers, and skip interpreter teardown (a long garbage collection once litellm is loaded,
    and a join of any thread still stuck), as the default SIGTERM action would have. Running
    commands go with it: procguard's reaper kills their process groups when flue's pipe closes."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    # litellm's exit handler makes a coroutine it cannot run once the loop is gone; its "never
    # awaited" warning would land on the user's terminal after the resume hint.
    warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
    atexit._run_exitfuncs()
    os._exit(code)
