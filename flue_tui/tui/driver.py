"""The terminal driver: Textual's own, except that leaving the app does not wait for its key thread.

Textual's Linux driver reads keys in a thread that polls stdin every 0.1 s; on exit it joins that
thread, which then polls once more, so every quit waited up to two polls doing nothing (seen in
faulthandler dumps during the quit). When the app is exiting, the thread is told to stop and left
to die with the process (runtime/quitting.py ends it at once). Suspending (Ctrl+Z) still joins.
"""

from __future__ import annotations

import sys
from typing import Any


def quick_exit(base: type[Any]) -> type[Any]:
    # Not imported here: a base that is the Linux driver has loaded its module already, and any
    # other (Windows, headless in tests, web) would pay the import of a module it never uses.
    linux = sys.modules.get("textual.drivers.linux_driver")
    if linux is None or not issubclass(base, linux.LinuxDriver):  # Textual's own, as it is
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
