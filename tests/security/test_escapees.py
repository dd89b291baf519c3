"""What a command or a hook starts outside its process group (`setsid`, a daemon) is gone when
flue is gone, by a normal exit or by kill -9, and a hook's timeout holds even when such a child
keeps the hook's output open. Before, a `setsid` child left the group the reaper kills, so it
outlived flue, and a hook's `setsid` child holding stdout made `flue -p` wait for it forever."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading

import pytest

from flue_tui.hooks.config import Hook
from flue_tui.hooks.run import run_hook
from tests.fakellm import Call, Turn
from tests.hooks.test_pretooluse import _hook, _settings
from tests.security.test_orphans import DEATH_TIMEOUT_S, START_TIMEOUT_S, _wait_for, linux_only
from tests.tools.conftest import pid_alive, read_pid, wait_dead

pytestmark = linux_only
FINISH_TIMEOUT_S = 180  # the real CLI imports litellm first: slow on a loaded machine


def _escapee(pidfile) -> str:
    """A child that leaves the command's session and process group, writes its pid, then sleeps."""
    return f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 1000'"


@pytest.fixture
def escaped():
    """Pids read from our own escapees' pidfiles: SIGKILLed at teardown if a test failed."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if pid_alive(pid):
            os.kill(pid, signal.SIGKILL)


def _left_its_session(pid: int) -> bool:
    """The escapee really is outside flue's reach by process group: it leads its own session."""
    return os.getsid(pid) == pid


def _when(path, event: threading.Event) -> None:
    def watch() -> None:
        _wait_for(lambda: path.exists() and path.read_text().strip(), START_TIMEOUT_S)
        event.set()

    threading.Thread(target=watch, daemon=True).start()


def _script(tool: str, command: str, held: threading.Event, then: str) -> list[Turn]:
    """The model runs `command` with `tool`, then waits for `held` before its next turn: `then`
    ("done": flue -p ends normally; "wait": flue stays up until it is killed)."""
    call = Call(tool, {"command": command}, id="c1")
    if then == "done":
        return [Turn(calls=[call]), Turn(text="done", stall_after=0, hold=held)]
    return [Turn(calls=[call]), Turn(text="waiting", stall_after=1, hold=threading.Event())]


def _flue(flue_env, tmp_path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "go", "--model", "openai/fake", "--permission-mode", "yolo", *more],
        cwd=tmp_path,
        env=flue_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("tool", ["bash", "bash_background"])
@pytest.mark.parametrize("end", ["exit", "kill -9"])
def test_a_setsid_child_is_gone_when_flue_is_gone(fakellm, flue_env, tmp_path, escaped, tool, end):
    pidfile = tmp_path / "escapee.pid"
    # bash returns at once (its output is not held); bash_background's job keeps running.
    command = f"{_escapee(pidfile)} > /dev/null 2>&1 &" + (" sleep 1000" if tool == "bash_background" else "")
    held = threading.Event()
    _when(pidfile, held)
    fakellm.script(_script(tool, command, held, "done" if end == "exit" else "wait"))
    flue = _flue(flue_env, tmp_path)
    try:
        pid = read_pid(pidfile)
        escaped.append(pid)
        assert _left_its_session(pid)
        if end == "kill -9":
            flue.kill()
        _, err = flue.communicate(timeout=FINISH_TIMEOUT_S)
        if end == "exit":
            assert flue.returncode == 0, err
        assert wait_dead(pid, DEATH_TIMEOUT_S), f"the setsid child {pid} outlived flue ({end})"
    finally:
        if flue.poll() is None:
            flue.kill()
            flue.communicate()


def test_a_re_parented_child_of_a_double_fork_is_gone_after_kill_9(fakellm, flue_env, tmp_path, escaped):
    # Its parent exits at once, so it is nobody's child of flue's by the time flue dies.
    pidfile = tmp_path / "escapee.pid"
    command = f"( {_escapee(pidfile)} & ) > /dev/null 2>&1; exec sleep 1000"
    fakellm.script(_script("bash", command, threading.Event(), "wait"))
    flue = _flue(flue_env, tmp_path)
    try:
        pid = read_pid(pidfile)
        escaped.append(pid)
        assert _wait_for(lambda: not _descends_from(pid, flue.pid), START_TIMEOUT_S)
        flue.kill()
        flue.communicate(timeout=FINISH_TIMEOUT_S)
        assert wait_dead(pid, DEATH_TIMEOUT_S), f"the re-parented child {pid} outlived flue"
    finally:
        if flue.poll() is None:
            flue.kill()
            flue.communicate()


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            return False
        if pid == ancestor:
            return True
    return False


@pytest.mark.parametrize("then", ["exits", "hangs"])
async def test_a_hooks_setsid_child_holding_its_output_does_not_outlive_the_timeout(tmp_path, escaped, then):
    pidfile = tmp_path / "hook.pid"
    rest = "exit 2" if then == "exits" else "exec sleep 1000"
    hook = Hook("PreToolUse", "Bash", f"{_escapee(pidfile)} & {rest}", timeout=1, origin="--settings")
    # A hang here is the bug: the limit only keeps a failing run from blocking the suite.
    ran = await asyncio.wait_for(run_hook(hook, {"hook_event_name": "PreToolUse"}, str(tmp_path)), FINISH_TIMEOUT_S)
    pid = read_pid(pidfile)
    escaped.append(pid)
    # Its own process exited or not, a child holding its output means it has not finished.
    assert ran.code is None and "timed out after 1s and was stopped" in (ran.failure or "")
    assert wait_dead(pid, DEATH_TIMEOUT_S), "the hook's setsid child outlived its timeout"


def test_flue_p_finishes_past_a_hook_whose_setsid_child_keeps_its_output(fakellm, run_flue, tmp_path, escaped):
    pidfile = tmp_path / "hook.pid"
    settings = _settings(_hook(f"{_escapee(pidfile)} &", timeout=1))
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo ran > ran.txt"}, id="b1")]), Turn(text="done")])
    out = run_flue(
        "-p",
        "go",
        "--model",
        "openai/fake",
        "--permission-mode",
        "yolo",
        "--settings",
        settings,
        timeout=FINISH_TIMEOUT_S,
    )
    pid = read_pid(pidfile)
    escaped.append(pid)
    assert out.code == 0, out.stderr
    assert "timed out after 1s and was stopped" in out.stderr
    assert (tmp_path / "ran.txt").read_text() == "ran\n"
    assert wait_dead(pid, DEATH_TIMEOUT_S), "the hook's setsid child outlived flue -p"


async def test_a_hooks_timeout_holds_even_when_the_child_holding_its_output_cannot_be_found(tmp_path, escaped):
    # `env -i` drops the mark, so nothing finds the child to kill it: the pipes are let go anyway.
    pidfile = tmp_path / "hook.pid"
    hook = Hook("PreToolUse", "Bash", f"env -i {_escapee(pidfile)} & exec sleep 1000", timeout=1, origin="--settings")
    ran = await asyncio.wait_for(run_hook(hook, {"hook_event_name": "PreToolUse"}, str(tmp_path)), FINISH_TIMEOUT_S)
    escaped.append(read_pid(pidfile))
    assert ran.code is None and "timed out after 1s and was stopped" in (ran.failure or "")
