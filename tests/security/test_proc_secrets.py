"""No command the agent runs can read a provider key out of flue's own process: not from
/proc/<flue>/environ, task/*/environ, cmdline or mem, not by scanning every /proc entry, in local
mode, in workspace mode without bubblewrap, and inside bubblewrap (its own PID namespace). Also
the helpers flue spawns (probes, the reaper) start with a clean environment.

These tests run as whoever runs pytest; on this project's CI that is root, the hardest case
(root reads any process's environ unless flue scrubs it and drops CAP_SYS_PTRACE)."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import sys
from pathlib import Path

import pytest

from flue_tui.sandbox import procguard
from flue_tui.sandbox.workspace import detect, probe
from tests.fakellm import Call, Turn
from tests.security import procdriver

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
BWRAP, WHY_NOT = detect()

# The scanner gets the secret in two halves so that no process's command line holds it whole.
SCANNER = r"""
import json, os, sys
me, parent = os.getpid(), int(sys.argv[1])
secret = (sys.argv[2] + sys.argv[3]).encode()
leaks, seen = [], 0
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == me:
        continue
    paths = [f"/proc/{pid}/environ", f"/proc/{pid}/cmdline"]
    try:
        paths += [f"/proc/{pid}/task/{tid}/environ" for tid in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        pass
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        seen += 1
        if secret in data:
            leaks.append(path)

def scan_memory(pid):
    try:
        with open(f"/proc/{pid}/maps") as f:
            maps = f.read().splitlines()
        mem = open(f"/proc/{pid}/mem", "rb", buffering=0)
    except OSError as exc:
        return f"denied ({exc.strerror})"
    with mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r") or line.endswith(("[vvar]", "[vsyscall]", "[vvar_vclock]")):
                continue
            lo, hi = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(lo)
                data = mem.read(hi - lo)
            except (OSError, OverflowError, ValueError):
                continue
            if data and secret in data:
                leaks.append(f"/proc/{pid}/mem")
                break
    return "read"

memory = scan_memory(parent)
print(json.dumps({"leaks": leaks, "seen": seen, "memory": memory,
                  "parent_visible": os.path.exists(f"/proc/{parent}/cmdline")}))
"""


@pytest.fixture
def keyed(tmp_path):
    """(environment with four provider keys, scan command). Every key holds the same random token."""
    half1, half2 = secrets.token_hex(8), secrets.token_hex(8)
    token = half1 + half2
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN", "_SECRET"))}
    env.update(
        {
            "OPENAI_API_KEY": f"sk-{token}",
            "ANTHROPIC_API_KEY": f"sk-ant-{token}",
            "AWS_SECRET_ACCESS_KEY": f"aws{token}",
            "GITHUB_TOKEN": f"ghp_{token}",
        }
    )
    scanner = tmp_path / "scan.py"
    scanner.write_text(SCANNER)
    # The venv's real interpreter: a checkout under /tmp (the box's /tmp is its own) hides the venv's link.
    python = os.path.realpath(sys.executable)
    command = f"{shlex.quote(python)} -I -S {shlex.quote(str(scanner))} $PPID {half1} {half2}"
    return env, command


def _scan(mode: str, cwd: Path, keyed) -> dict:
    env, command = keyed
    started, done = procdriver.run(mode, cwd, command, env)
    # flue itself still has its key, for Python and for C code calling getenv
    assert started["key_still_usable"] == started["c_getenv"] == env["OPENAI_API_KEY"]
    assert done["stderr"] == ""
    return json.loads(done["stdout"])


@linux_only
@pytest.mark.parametrize("mode", ["local", "workspace-no-bwrap"])
def test_no_proc_path_shows_a_key_without_bubblewrap(mode, tmp_path, keyed):
    report = _scan(mode, tmp_path, keyed)
    assert report["parent_visible"] and report["seen"] > 3  # the scan really looked at flue
    assert report["leaks"] == []
    assert report["memory"].startswith("denied")


@linux_only
@pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unusable here: {WHY_NOT}")
def test_inside_bubblewrap_no_host_process_is_visible(tmp_path, keyed):
    report = _scan("bwrap", tmp_path, keyed)
    assert report["leaks"] == []
    assert report["seen"] < 20  # only the box's own few processes; before: every host process


@linux_only
def test_flue_print_mode_keeps_its_keys(fakellm, run_flue, flue_env, tmp_path, keyed):
    """The real CLI: the model asks bash to dig keys out of /proc; the tool result it gets back
    holds none of them."""
    env, command = keyed
    run_env = {**env, **{k: v for k, v in flue_env.items() if k != "OPENAI_API_KEY"}}
    fakellm.script([Turn(calls=[Call("bash", {"command": command}, id="b1")]), Turn(text="done")])
    out = run_flue("-p", "--permission-mode", "yolo", "find keys", "--model", "openai/fake", env=run_env, timeout=180)
    assert out.code == 0, out.stderr
    tool = [m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"]
    report = json.loads(tool[0])
    assert report["parent_visible"] and report["leaks"] == [] and report["memory"].startswith("denied")


@linux_only
def test_helpers_start_without_keys(tmp_path, monkeypatch):
    """The bubblewrap probe runs whatever `bwrap` is; it must not inherit flue's keys."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-helper-secret-value")
    dump = tmp_path / "env.txt"
    fake = tmp_path / "fake-bwrap"
    fake.write_text(f"#!/bin/sh\nenv > {shlex.quote(str(dump))}\n")
    fake.chmod(0o755)
    assert probe(str(fake), False) is None
    assert "sk-helper-secret-value" not in dump.read_text()
    procguard.reaper.watch(999_999_999)  # starts the reaper if it is not running yet
    procguard.reaper.release(999_999_999)
    assert procguard.reaper.pid is not None
    with open(f"/proc/{procguard.reaper.pid}/environ", "rb") as f:
        assert f.read() == b""
