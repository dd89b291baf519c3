"""flue as root drops CAP_SYS_PTRACE for every command it runs (sandbox/procguard.py). The drop
holds per thread: made where the sandbox is built, a worker thread, it left the event loop's
thread, which spawns the commands, holding it, and a command could read flue's memory and the
relay's (their keys). The `flue` entry now hardens on the main thread before any other starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakellm import Call, Turn

CAP_SYS_PTRACE = 19


@pytest.mark.skipif(os.geteuid() != 0, reason="only root holds CAP_SYS_PTRACE to drop")
def test_a_command_run_from_inline_mode_holds_no_ptrace_capability(inline, fakellm, work: Path) -> None:
    fakellm.script(
        [
            Turn(calls=[Call("bash", {"command": "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status > caps"})]),
            Turn(text="Read."),
        ]
    )
    term = inline("--permission-mode", "yolo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("caps\r")
    term.wait_for("Read.")
    caps = dict(line.split(":\t") for line in (work / "caps").read_text().splitlines())
    assert len(caps) == 3
    for name, value in caps.items():
        assert not int(value, 16) & (1 << CAP_SYS_PTRACE), f"{name} holds CAP_SYS_PTRACE: {value}"
