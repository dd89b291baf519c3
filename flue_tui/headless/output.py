"""Where print mode writes: stdout (answers, stream-json, events) and stderr (progress, notes).

`flue -p … | head -1` closes the pipe after one line. The next write then fails with EPIPE; here
that ends the run at once and quietly: no BrokenPipeError traceback, no "event listener failed"
and no run that goes on for a reader that is gone. What was recorded so far is kept (the store
is cut as after SIGTERM) and the exit code is 141, the shell's code for a process SIGPIPE ended.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import TextIO

EXIT_PIPE = 128 + 13  # SIGPIPE

_on_gone: list[Callable[[], None]] = []


def when_gone(hook: Callable[[], None]) -> None:
    """Run `hook` (keep the recording) before a run ends for a closed stdout or stderr."""
    _on_gone.append(hook)


def _gone(stream: TextIO) -> None:
    from flue_tui.runtime.workers import exit_now

    # Both ends to /dev/null, so the flushes on the way out cannot fail (and print) again.
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    for hook in _on_gone:
        try:
            hook()
        except Exception:
            pass
    exit_now(EXIT_PIPE)


def write(text: str, stream: TextIO | None = None) -> None:
    """Write and flush `text`; a reader that has gone ends the run (module docstring)."""
    out = sys.stdout if stream is None else stream
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        _gone(out)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _gone(out)


def say(line: str) -> None:
    """One line on stderr."""
    write(line + "\n", sys.stderr)
