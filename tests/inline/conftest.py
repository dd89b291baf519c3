"""Inline-mode helpers: the real `flue --inline` in a pseudo-terminal (pexpect), read through a
VT100 emulator (pyte) that keeps a scrollback, so tests see what a person would see, redraws
and all, and can check that the scrollback holds the conversation with no leftovers."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
UP, ESC, CTRL_C, TAB = "\x1b[A", "\x1b", "\x03", "\t"


class Term:
    """A terminal of `rows`×`cols` running a command; `lines()` is scrollback + screen."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path, rows: int = 40, cols: int = 110) -> None:
        self.cols = cols
        self.screen = pyte.HistoryScreen(cols, rows, history=20000)
        self.stream = pyte.Stream(self.screen)
        self.raw: list[str] = []
        self.child = pexpect.spawn(
            argv[0], argv[1:], env=env, cwd=str(cwd), dimensions=(rows, cols), encoding="utf-8", codec_errors="replace"
        )
        # Answer cursor-position reports (prompt-toolkit asks) as a real terminal would.
        self.screen.write_process_input = lambda data: self.child.send(data)

    def pump(self, seconds: float = 0.05) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=max(0.0, min(0.05, deadline - time.monotonic())))
            except pexpect.TIMEOUT:
                data = ""
            except pexpect.EOF:
                return
            if data:
                self.raw.append(data)
                self.stream.feed(data)
            if time.monotonic() >= deadline:
                return

    def lines(self) -> list[str]:
        history = ["".join(line[x].data for x in range(self.cols)).rstrip() for line in self.screen.history.top]
        return history + [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def screen_text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait(self, cond: Callable[[str], object], timeout: float = 120.0, what: str = "") -> str:
        """Pump output until cond(screen + scrollback text) holds; fail with the screen if it never does."""
        deadline = time.monotonic() + timeout
        while True:
            self.pump(0.05)
            text = self.text()
            if cond(text):
                return text
            if time.monotonic() > deadline or (not self.child.isalive() and not self._pending()):
                raise AssertionError(f"timed out waiting for {what or cond}; terminal was:\n{text[-4000:]}")

    def _pending(self) -> bool:
        try:
            data = self.child.read_nonblocking(65536, timeout=0.1)
        except (pexpect.TIMEOUT, pexpect.EOF):
            return False
        self.raw.append(data)
        self.stream.feed(data)
        return True

    def wait_for(self, needle: str, timeout: float = 120.0) -> str:
        return self.wait(lambda t: needle in t, timeout, repr(needle))

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def prompt_line(self) -> str:
        """The last `› ` line on screen: what is in the input right now."""
        found = [ln for ln in self.screen.display if ln.startswith("›")]
        return found[-1].rstrip() if found else ""

    def exit_code(self, timeout: float = 90.0) -> int | None:  # generous: exit tears down litellm
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self.pump(0.1)
        self.pump(0.1)
        if self.child.isalive():
            return None
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def in_order(lines: list[str], *needles: str) -> list[int]:
    """Index of the first line containing each needle, each after the previous; fails otherwise."""
    found: list[int] = []
    start = 0
    for needle in needles:
        for i in range(start, len(lines)):
            if needle in lines[i]:
                found.append(i)
                start = i + 1
                break
        else:
            raise AssertionError(f"{needle!r} not found after line {start}:\n" + "\n".join(lines))
    return found


@pytest.fixture
def work(tmp_path: Path) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    return d


@pytest.fixture
def inline(flue_env: dict[str, str], work: Path) -> Iterator[Callable[..., Term]]:
    """`inline(*args, env={...})` → a Term running `flue --inline --model openai/fake ARGS` in `work`."""
    terms: list[Term] = []

    def start(*args: str, env: dict[str, str] | None = None, rows: int = 40, cols: int = 110) -> Term:
        full = {k: v for k, v in flue_env.items() if k != "NO_COLOR"}  # colours unless a test asks
        full.update({"TERM": "xterm-256color", **(env or {})})
        term = Term(
            [sys.executable, "-m", "flue_tui", "--inline", "--model", "openai/fake", *args],
            env=full,
            cwd=work,
            rows=rows,
            cols=cols,
        )
        terms.append(term)
        return term

    yield start
    for term in terms:
        term.close()


@pytest.fixture
def history_file() -> Callable[[Path], Path]:
    from flue_tui.ui.history import history_path

    return lambda cwd: history_path(os.path.abspath(str(cwd)))
