"""`flue -p … | head -1`: the reader goes away after one line (or none). The run stops there,
quietly: no BrokenPipeError traceback, no "event listener failed", exit 141 (SIGPIPE's code).
A real pipe to a real process; the stream is held until the read end is closed."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from tests.fakellm import Turn


@pytest.mark.parametrize("fmt", ["text", "stream-json", "events"])
def test_a_closed_pipe_ends_the_run_quietly(fakellm, flue_env, tmp_path, fmt: str) -> None:
    hold = threading.Event()
    fakellm.script([Turn(text="line one\nline two\n" * 200, stall_after=2, hold=hold)])
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "go", "--model", "openai/fake", "--output-format", fmt],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=flue_env,
        cwd=tmp_path,
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        if fmt != "text":
            assert proc.stdout.readline()  # the init line: what `head -1` keeps
        fakellm.wait_for_requests(1, timeout=180)  # generous: a loaded box starts slowly
        proc.stdout.close()  # `head` has its line and is gone
        hold.set()
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
    finally:
        hold.set()
        proc.kill()
    assert proc.returncode == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "listener failed" not in err, err
    assert err == "", err
