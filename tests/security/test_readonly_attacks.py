"""A hostile repository or model against the read-only shortcut and the git config check (review).

git reads several section headers on one line (`[color][core] fsmonitor = x` sets core.fsmonitor);
the config check read only the first, so it took core's key for an inert colour setting and let a
`git status` that runs the repository's fsmonitor go unasked (and past a `bash(git status:*)` rule).
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from flue_tui.permissions.git import repository_programs
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from tests.fakellm import Call, Turn
from tests.security.test_shell_rules import verdict


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, "HOME": str(cwd)})


@pytest.fixture
def bash(tmp_path):
    return next(t for t in builtin_tools(LocalSandbox(str(tmp_path))) if t.name == "bash")


HIDDEN_KEYS = [
    "[color][core]fsmonitor = ./evil\n",
    "[advice] [core] fsmonitor = ./evil\n",
    '[color "x"][diff "y"]\n\ttextconv = ./evil\n',
    "[color][advice][core]\n\tpager = ./evil\n",
]


@pytest.mark.parametrize("config", HIDDEN_KEYS)
def test_a_key_after_two_headers_on_one_line_is_seen(bash, tmp_path, config):
    _git(tmp_path, "init", "-q")
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write(config)
    assert repository_programs(str(tmp_path), False) is not None
    assert verdict(bash, "git status") == "ask"
    assert verdict(bash, "git status", allow=["bash(git status:*)"]) == "ask"


def test_print_mode_does_not_run_an_fsmonitor_behind_a_colour_header(fakellm, flue_main, tmp_path):
    _git(tmp_path, "init", "-q")
    evil = tmp_path / "evil.sh"
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/pwned"\n')
    evil.chmod(0o755)
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write(f"[color][core]fsmonitor = {evil}\n")
    fakellm.script([Turn(calls=[Call("bash", {"command": "git status"}, id="b1")]), Turn(text="done")])
    out = flue_main("-p", "look", "--model", "openai/fake", "--permission-mode", "ask", "--output-format", "json")
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()
