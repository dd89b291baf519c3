"""proctree kills only what carries its mark: one spawn's exactly (RUN.1 is not RUN.10), a run's
every spawn, never another flue's token, another variable or an unmarked process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from flue_tui.sandbox import proctree
from tests.tools.conftest import pid_alive, wait_dead

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture
def spawn():
    procs: list[subprocess.Popen[bytes]] = []

    def start(**env: str) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(["sleep", "600"], env={"PATH": os.environ["PATH"], **env}, start_new_session=True)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def _gone(proc: subprocess.Popen[bytes]) -> bool:
    if not wait_dead(proc.pid):
        return False
    proc.wait()
    return True


def test_a_spawns_mark_is_exact_and_a_runs_token_covers_its_spawns_only(spawn):
    run = "feedc0de"
    one = spawn(FLUE_PROCESS_TREE=f"{run}.1")
    ten = spawn(FLUE_PROCESS_TREE=f"{run}.10")
    other_run = spawn(FLUE_PROCESS_TREE=f"{run}x.1")
    other_name = spawn(FLUE_PROCESS_TREE_COPY=f"{run}.1", XFLUE_PROCESS_TREE=f"{run}.1")
    unmarked = spawn()
    proctree.kill_marked(f"{run}.1")
    assert _gone(one)
    assert all(pid_alive(p.pid) for p in (ten, other_run, other_name, unmarked))
    proctree.kill_marked(run)
    assert _gone(ten)
    assert all(pid_alive(p.pid) for p in (other_run, other_name, unmarked))


def test_a_mark_nothing_carries_signals_nothing(spawn):
    bystander = spawn(FLUE_PROCESS_TREE="someone.else")
    assert proctree.signal_marked(proctree.new_mark(), 0) == 0
    assert pid_alive(bystander.pid)
