"""`flue ARGS` in this test process: the real `main(argv)`, with its own stdin, stdout, stderr,
environment and working directory for the length of the call.

A subprocess pays the litellm import (seconds of CPU, tens of seconds on a loaded 2-core box)
on every run; here it is paid once per test session. What only a process can show stays in
subprocess tests (`run_flue`): signals, exit on SIGTERM, kill -9, ptys, what a fresh interpreter
imports, environment isolation and procguard.
"""

from __future__ import annotations

import io
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass
class CLIResult:
    code: int
    stdout: str
    stderr: str


def _text(stream: io.TextIOWrapper) -> str:
    """What a parent reading the pipe with `text=True` gets: UTF-8, universal newlines."""
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace").read()


def _exit_code(exc: SystemExit, stderr: io.TextIOWrapper) -> int:
    """What the interpreter makes of a SystemExit that reaches it (argparse's errors, --version)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=stderr)
    return 1


def call_main(argv: list[str], *, stdin: str | None, cwd: Path, env: dict[str, str]) -> CLIResult:
    """Run `flue_tui.cli.flue.main(argv)` as `python -m flue_tui ARGV` would, and put everything
    it changes in this process back: environment, cwd, standard streams, SIGINT/SIGTERM handlers."""
    from flue_tui.cli.flue import main

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_signals = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    data = (stdin or "").encode("utf-8")
    fake_in = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    fake_out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    fake_err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = fake_in, fake_out, fake_err
        try:
            code = main(argv)
        except SystemExit as exc:
            code = _exit_code(exc, fake_err)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
    return CLIResult(code, _text(fake_out), _text(fake_err))
