"""The terminal inline mode writes into: one rich Console, dumb-terminal detection, and keeping
keys typed while the agent works from echoing into its output (that echo is redraw debris)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from rich.console import Console


def is_dumb() -> bool:
    """TERM=dumb (Emacs shell, some CI logs): no cursor movement, no colour. Same test as
    prompt-toolkit's, so the prompt and the output agree on what the terminal can do."""
    return os.environ.get("TERM", "") in ("dumb", "unknown")


def make_console(dumb: bool) -> Console:
    if dumb:
        return Console(color_system=None, no_color=True, highlight=False, emoji=False, soft_wrap=True)
    # rich reads NO_COLOR itself (styles such as bold stay, colours go), as prompt-toolkit does.
    return Console(highlight=False, emoji=False)


def _stdin_fd() -> int | None:
    try:
        return sys.stdin.fileno() if sys.stdin.isatty() else None
    except (AttributeError, OSError, ValueError):
        return None


@contextlib.contextmanager
def quiet_input() -> Iterator[None]:
    """While the agent works: no echo and no line editing, but Ctrl+C still raises SIGINT.
    What the user types meanwhile stays buffered and arrives at the next prompt (type-ahead)."""
    fd = _stdin_fd()
    if fd is None:
        yield
        return
    import termios

    try:
        old = termios.tcgetattr(fd)
    except termios.error:
        yield
        return
    new = termios.tcgetattr(fd)
    new[0] &= ~termios.ICRNL  # Enter stays \r: translated to \n it would reach the prompt as Ctrl+J
    new[3] &= ~(termios.ECHO | termios.ICANON)
    new[3] |= termios.ISIG
    termios.tcsetattr(fd, termios.TCSANOW, new)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, old)


@contextlib.contextmanager
def normal_input() -> Iterator[None]:
    """Back to the terminal's usual mode for a question asked in the middle of a turn (or while
    everything else is quiet): echo, line editing, and Enter's CR read as the end of the line."""
    fd = _stdin_fd()
    if fd is None:
        yield
        return
    import termios

    current = termios.tcgetattr(fd)
    cooked = termios.tcgetattr(fd)
    cooked[0] |= termios.ICRNL  # quiet_input cleared it: without it a line read never sees Enter
    cooked[3] |= termios.ECHO | termios.ICANON | termios.ISIG
    termios.tcsetattr(fd, termios.TCSANOW, cooked)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, current)


def drop_typeahead() -> None:
    """Before a permission question: a key typed earlier must never answer it."""
    fd = _stdin_fd()
    if fd is None:
        return
    import termios

    with contextlib.suppress(termios.error):
        termios.tcflush(fd, termios.TCIFLUSH)
