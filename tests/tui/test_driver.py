"""The app's driver (tui/driver.py): Textual's Linux driver with a quit that does not join its key
thread; any other driver as Textual has it, its Linux module not imported for nothing."""

from __future__ import annotations

import subprocess
import sys


def test_the_linux_driver_gets_the_quick_exit_and_others_are_left_as_they_are() -> None:
    from textual.drivers.headless_driver import HeadlessDriver
    from textual.drivers.linux_driver import LinuxDriver

    from flue_tui.tui.driver import quick_exit

    quick = quick_exit(LinuxDriver)
    assert issubclass(quick, LinuxDriver) and quick is not LinuxDriver
    assert quick_exit(HeadlessDriver) is HeadlessDriver


def test_a_headless_app_does_not_import_the_linux_driver() -> None:
    script = (
        "import sys\n"
        "from textual.drivers.headless_driver import HeadlessDriver\n"
        "from flue_tui.tui.driver import quick_exit\n"
        "assert quick_exit(HeadlessDriver) is HeadlessDriver\n"
        "print('textual.drivers.linux_driver' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
