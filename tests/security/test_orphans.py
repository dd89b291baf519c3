"""A command dies with flue, even when flue is killed with SIGKILL: the shell by PR_SET_PDEATHSIG,
the rest of its process group by flue's reaper, and under bubblewrap the whole PID namespace.
Before, `kill -9` of flue left the running command (and its children) behind."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time

import pytest

from flue_tui.sandbox.workspace import detect
from tests.fakellm import Call, Turn
from tests.security import procdriver
from tests.tools.conftest import pid_alive

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds processes through /proc")
BWRAP, WHY_NOT = detect()
START_TIMEOUT_S = 120  # the real CLI imports litellm first: slow on a loaded machine
DEATH_TIMEOUT_S = 90  # the reaper is a fresh interpreter: on a box running several suites it starts late


def _tagged(tag: str, named: bool = False) -> list[int]:
    """Live processes whose command line carries the tag (the shell), or with `named`, whose
    argv[0] is tagged (the two sleeps)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        hit = cmdline.startswith(tag.encode()) if named else tag.encode() in cmdline
        if hit and pid_alive(int(name)):
            found.append(int(name))
    return found


def _wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture
def tag():
    """A unique argv[0] for the command's processes; whatever carries it is killed at teardown."""
    value = f"flue-orphan-{secrets.token_hex(6)}"
    yield value
    for pid in _tagged(value):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _command(tag: str) -> str:
    # The shell stays alive with two children of its own: one in the foreground, one in the background.
    return f"(exec -a {tag}-bg sleep 600) & (exec -a {tag}-fg sleep 600); wait"


def _kill_and_check(flue: subprocess.Popen, tag: str) -> None:
    try:
        assert _wait_for(lambda: len(_tagged(tag, named=True)) == 2, START_TIMEOUT_S), "the command never started"
        flue.kill()  # SIGKILL: flue gets no chance to clean up
        flue.wait(30)
        assert _wait_for(lambda: not _tagged(tag), DEATH_TIMEOUT_S), f"still running: {_tagged(tag)}"
    finally:
        if flue.poll() is None:
            flue.kill()
        flue.communicate()


@linux_only
def test_kill_9_of_flue_print_mode_takes_the_command_along(fakellm, flue_env, tmp_path, tag):
    fakellm.script([Turn(calls=[Call("bash", {"command": _command(tag)}, id="b1")]), Turn(text="done")])
    flue = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "--permission-mode", "yolo", "wait", "--model", "openai/fake"],
        cwd=tmp_path,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _kill_and_check(flue, tag)


@linux_only
@pytest.mark.parametrize(
    "mode",
    [
        "workspace-no-bwrap",
        pytest.param("bwrap", marks=pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unusable: {WHY_NOT}")),
    ],
)
def test_kill_9_in_workspace_mode(mode, tmp_path, tag):
    flue = procdriver.start(mode, tmp_path, _command(tag), dict(os.environ))
    _kill_and_check(flue, tag)


@linux_only
def test_a_killed_reaper_is_replaced_and_told_every_running_group():
    from flue_tui.sandbox.procguard import Reaper

    reaper = Reaper()
    sleeper = subprocess.Popen(["sleep", "600"], start_new_session=True)
    try:
        reaper.watch(sleeper.pid)
        first = reaper.pid
        os.kill(first, signal.SIGKILL)  # a command may kill it; it runs as the same user
        assert _wait_for(lambda: not pid_alive(first), DEATH_TIMEOUT_S)
        reaper.watch(999_999_998)  # the next command respawns it
        assert reaper.pid != first and pid_alive(reaper.pid)
        reaper._channel.close()  # what flue's death looks like from the reaper's side
        assert sleeper.wait(DEATH_TIMEOUT_S) == -signal.SIGKILL
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()


# A stand-in flue killed at the worst moment: its command has started (and started children of
# its own) but flue has not yet told the reaper about it. The command must still go with it.
_KILLED_BEFORE_WATCH = r"""
import asyncio, os, signal, sys, time
from flue_tui.sandbox import procguard
from flue_tui.sandbox.local import LocalSandbox
cwd, command, tag = sys.argv[1:4]

def sleeps_running():
    found = 0
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                found += f.read().startswith(tag.encode())
        except OSError:
            pass
    return found == 2

def die_before_telling(pgid):  # what a SIGKILL right after the spawn looks like
    while not sleeps_running():
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGKILL)

procguard.reaper.watch = die_before_telling
asyncio.run(LocalSandbox(cwd).exec(command))
"""


@linux_only
def test_a_flue_killed_between_the_spawn_and_telling_the_reaper_takes_the_command_along(tmp_path, tag):
    flue = subprocess.Popen(
        [sys.executable, "-c", _KILLED_BEFORE_WATCH, str(tmp_path), _command(tag), tag],
        cwd=procdriver.ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert flue.wait(START_TIMEOUT_S) == -signal.SIGKILL, flue.communicate()
        assert _wait_for(lambda: not _tagged(tag), DEATH_TIMEOUT_S), f"still running: {_tagged(tag)}"
    finally:
        if flue.poll() is None:
            flue.kill()
        flue.communicate()
