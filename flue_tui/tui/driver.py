"""The terminal driver: Textual's own, except that leaving the app does not wait for its key thread.

Textual's Linux driver reads keys in a thread that polls stdin every 0.1 s; on exit it joins that
thread, which then polls once more, so every quit paid up to 0.2 s doing nothing (measured with
faulthandler dumps during the quit). When the app is exiting, the thread is told to stop and left
to die with the process (runtime/quitting.py ends it at once). Suspending (Ctrl+Z) still joins.
"""

from __future__ import annotations

from typing import Any


def quick_exit(base: type[Any]) -> type[Any]:
    from textual.drivers.linux_driver import LinuxDriver

    if not issubclass(base, LinuxDriver):  # Windows, headless (tests), web: Textual's as they are
        return base

    class QuickExitDriver(base):
        def disable_input(self) -> None:
            if not getattr(self._app, "_exit", False):
                super().disable_input()
                return
            self._key_thread = None  # not joined: it is stopped below and ends with the process
            super().disable_input()
            self.exit_event.set()  # Textual clears it after its join; keep the thread stopping

    return QuickExitDriver
