"""A command cannot reach the reaper's channel, and a reaper a command stopped costs nothing
(issue 42, attack round B). Before, the channel was a pipe any process of the user could open
again through `/proc/<reaper>/fd/0`: it fed the reaper groups to kill, made it forget flue's, or
held the pipe open so a kill -9 of flue never reached it; and a reaper stopped by a command did
nothing at flue's normal exit, so what the command left running outlived flue."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from flue_tui.sandbox.procguard import Reaper
from tests.fakellm import Call, Turn
from tests.security.test_escapees import FINISH_TIMEOUT_S, _escapee, _flue
from tests.security.test_orphans import DEATH_TIMEOUT_S, linux_only
from tests.tools.conftest import pid_alive, read_pid, wait_dead

pytestmark = linux_only


@pytest.fixture
def reaper():
    made = Reaper()
    yield made
    made.end()


@pytest.fixture
def sleeper():
    proc = subprocess.Popen(["sleep", "600"], start_new_session=True)
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_the_channel_cannot_be_opened_again_through_proc(reaper, sleeper):
    reaper.watch(sleeper.pid)
    for mode in ("wb", "rb"):
        with pytest.raises(OSError):  # root included: a socket has no path to open
            open(f"/proc/{reaper.pid}/fd/0", mode)  # it must not open at all


def test_the_reaper_is_out_of_reach_of_a_command_without_ptrace(reaper, sleeper):
    # A command runs as flue's user and, under a root flue, without CAP_SYS_PTRACE (harden).
    reaper.watch(sleeper.pid)
    probe = (
        "import sys\n"
        "from flue_tui.sandbox import procguard\n"
        "procguard.harden()\n"
        "try:\n"
        f"    open('/proc/{reaper.pid}/mem', 'rb')\n"  # the check ptrace and pidfd_getfd make too
        "except PermissionError:\n"
        "    sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120)
    assert done.returncode == 0, "a process of the same user could read the reaper (it is dumpable)"


def test_a_stopped_reaper_never_blocks_flue_and_is_replaced(reaper, sleeper):
    reaper.watch(sleeper.pid)
    first = reaper.pid
    os.kill(first, signal.SIGSTOP)
    for n in range(100_000):  # far past what the socket buffers hold
        reaper.watch(2 + n % 1000)
        reaper.release(2 + n % 1000)
    assert reaper.pid != first
    assert wait_dead(first, DEATH_TIMEOUT_S), "the stopped reaper was left behind"
    reaper._channel.close()  # what flue's death looks like from the new reaper's side
    assert sleeper.wait(DEATH_TIMEOUT_S) == -signal.SIGKILL


def test_flue_ends_its_groups_itself(reaper, sleeper):
    reaper.watch(sleeper.pid)
    os.kill(reaper.pid, signal.SIGSTOP)
    stopped = reaper.pid
    reaper.end()  # what flue's exit runs
    assert sleeper.wait(DEATH_TIMEOUT_S) == -signal.SIGKILL
    assert wait_dead(stopped, DEATH_TIMEOUT_S)


def test_a_setsid_child_is_gone_after_flue_exits_with_its_reaper_stopped(fakellm, flue_env, tmp_path):
    escapee, stopped = tmp_path / "escapee.pid", tmp_path / "reaper.pid"
    # The command stops flue's reaper (a child of flue, like the command's own shell), then
    # leaves its session with a child that outlives the command. (The pattern is bracketed so
    # that the command's own shell, whose command line holds it, does not match.)
    stop_reaper = (
        'for d in /proc/[0-9]*; do [ "$(cut -d" " -f4 $d/stat 2>/dev/null)" = "$PPID" ] && '
        f"grep -qa 'proctree[.]py' $d/cmdline 2>/dev/null && kill -STOP ${{d#/proc/}} && echo ${{d#/proc/}} > {stopped}; "
        "done"
    )
    command = f"{stop_reaper}; {_escapee(escapee)} > /dev/null 2>&1 &"
    held = threading.Event()
    fakellm.script([Turn(calls=[Call("bash", {"command": command}, id="c1")]), Turn(text="done", hold=held)])
    flue = _flue(flue_env, tmp_path)
    try:
        pids = [read_pid(escapee), read_pid(stopped)]
        held.set()
        _, err = flue.communicate(timeout=FINISH_TIMEOUT_S)
        assert flue.returncode == 0, err
        for pid in pids:
            assert wait_dead(pid, DEATH_TIMEOUT_S), f"{pid} outlived flue"
    finally:
        if flue.poll() is None:
            flue.kill()
            flue.communicate()
        for pid in pids if "pids" in locals() else ():
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
