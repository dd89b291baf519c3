"""Read-only commands run unasked in ask, accept-edits and plan modes (issues 26, 42), and nothing
else does (plan mode refuses the rest).

Every command the rule-bypass tests already hold against (test_shell_rules.py) stays asked; a
repository whose own config names a program makes git asked (git would run it); the real `flue -p`
runs `git status && ls` unasked and still refuses `rm`.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from flue_tui.permissions.config import build_policy, load_config
from flue_tui.permissions.policy import PLAN_TEXT, PermissionPolicy, no_ask_text
from flue_tui.permissions.readonly import read_only
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from tests.fakellm import Call, Turn
from tests.security.test_shell_rules import GIT_PROGRAM_RUNNERS, RM_SPELLINGS, UNCLEAR, verdict

READ_ONLY = [
    "ls",
    "ls -la src",
    "git status && ls",
    "git status --short",
    "git diff HEAD~1 -- src",
    "git --no-pager log --oneline -5",
    "git log -p -3 | head -50",
    "git show HEAD:README.md",
    "cat a.txt | wc -l",
    "head -n 5 a.txt; tail -n 5 a.txt",
    "grep -rn TODO . 2>/dev/null",
    "rg -n 'def \\w+' src",
    "find . -name '*.py' -type f",
    "pwd && wc -l a.txt",
    "ls >/dev/null 2>&1 || true",
    "wc -l < a.txt",
]


@pytest.fixture
def bash(tmp_path):
    return next(t for t in builtin_tools(LocalSandbox(str(tmp_path))) if t.name == "bash")


NOT_READ_ONLY = [
    *RM_SPELLINGS,
    *GIT_PROGRAM_RUNNERS,
    *UNCLEAR,
    # writes, by redirection or by the program itself
    "ls > out.txt",
    "cat a >> b",
    "echo x >| f",
    "git diff --output=p.diff",
    "git diff --out=p.diff",
    "git log --output p",
    "git format-patch -o d HEAD~1",
    # bash connects for these itself, whichever way the arrow points (issue 42)
    "cat < /dev/tcp/127.0.0.1/9",
    "head -c 10 0</dev/udp/127.0.0.1/53",
    "wc -c <'/dev/tcp/example.com/80'",
    "cat < $F",
    "ls 2>/dev/tcp/127.0.0.1/9",
    # find's actions
    "find . -delete",
    "find . -name x -execdir cat {} +",
    "find . -fprint out",
    "find . -fprintf out %p",
    "find . -fls out",
    # programs run by options or configuration
    "rg --pre=./evil x",
    "rg --pre ./evil x",
    "rg --pre-glob '*' x",
    "rg -z x",
    "rg -niz x",
    "rg --search-zip x",
    "rg --hostname-bin=./evil x",
    "git --paginate log",
    "git -p log",
    "git -C /tmp/other status",
    "git --git-dir=/tmp/evil status",
    "git --work-tree=/tmp status",
    "git diff --ext-diff",
    "git grep -O x",
    "git branch new",
    "git checkout .",
    "git stash",
    # environment and names known only when it runs
    "GIT_PAGER=./evil git log",
    "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor=./evil'\" git status",
    "LESSOPEN='|./evil %s' ls",
    "PATH=. ls",
    "X=1 ls",
    "env ls",
    "cat *",
    "rg x *",
    "ls $HOME",
    "ls $(echo -la)",
    "cat <(rm x)",
    "ls <(git -c core.pager=rm log)",
    "diff <(ls) <(touch made)",
    "./ls",
    "/tmp/ls",
    "cd /tmp && git status",
    # not a reader at all
    "sed -n 1p f",
    "awk 'BEGIN{system(\"rm x\")}'",
    "sort -o f f",
    "tee f",
    "less f",
    "python -c 1",
    "echo hi",
    "",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_a_read_only_command_runs_unasked(bash, command):
    assert verdict(bash, command) == "allow"
    assert verdict(bash, command, mode="accept-edits") == "allow"
    assert verdict(bash, command, mode="plan") == "allow"  # the same decision: what ask runs, plan runs
    off = PermissionPolicy(mode="ask", root=bash.sandbox.cwd, safe_commands=False)
    assert off.decide("bash", {"command": command}, bash).verdict == "ask"
    off.set_mode("plan")
    assert off.decide("bash", {"command": command}, bash).verdict == "deny"


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_anything_else_is_still_asked(bash, command):
    assert not read_only(command, bash.sandbox.cwd)
    assert verdict(bash, command) in ("ask", "deny")
    assert verdict(bash, command, mode="accept-edits") in ("ask", "deny")
    assert verdict(bash, command, mode="plan") == "deny"
    assert verdict(bash, command, mode="plan", allow=["bash"]) == "deny"  # plan mode beats allow rules


def test_a_deny_rule_still_refuses_a_read_only_command(bash):
    assert verdict(bash, "cat secret.txt", deny=["bash(cat *)"]) == "deny"


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, "HOME": str(cwd)})


EVIL_CONFIGS = [
    "[core]\n\tfsmonitor = ./evil\n",
    "[core] fsmonitor = ./evil\n",
    '[filter "x"]\n\tclean = ./evil\n',
    '[diff "x"]\n\ttextconv = ./evil\n',
    "[log]\n\tshowSignature = true\n[gpg]\n\tprogram = ./evil\n",
    "[include]\n\tpath = other\n",
    '[includeIf "gitdir:/"]\n\tpath = other\n',
    "[core]\n\tpager = ./evil\n",
    "[core]\n\tbare = false \\\n\nfsmonitor = ./evil\n",
    "[core]\nFSMONITOR = ./evil\n",
    "[alias]\n\tst = !./evil\n",
    "\ufeff[core]\n\tfsmonitor = ./evil\n",
]


@pytest.mark.parametrize("config", EVIL_CONFIGS)
def test_a_repository_config_that_names_a_program_makes_git_asked(bash, tmp_path, config):
    _git(tmp_path, "init", "-q")
    assert verdict(bash, "git status") == "allow"  # git init's own config is plain
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write(config)
    assert verdict(bash, "git status") == "ask"
    assert verdict(bash, "git status", mode="plan") == "deny"
    assert verdict(bash, "ls") == "allow"  # only git reads that file


def test_every_config_git_would_read_is_checked(bash, tmp_path):
    _git(tmp_path, "init", "-q")
    modules = tmp_path / ".git" / "modules" / "sub"
    modules.mkdir(parents=True)
    (modules / "config").write_text("[core]\n\tfsmonitor = ./evil\n")
    assert verdict(bash, "git status") == "ask"  # status recurses into submodules
    (modules / "config").unlink()
    (tmp_path / ".git" / "config.worktree").write_text("[core]\n\tfsmonitor = ./evil\n")
    assert verdict(bash, "git diff") == "ask"
    (tmp_path / ".git" / "config.worktree").unlink()
    os.mkfifo(tmp_path / ".git" / "config.worktree")  # never opened for reading: it would block
    assert verdict(bash, "git log") == "ask"


def test_a_git_file_or_a_bare_repository_is_followed(bash, tmp_path):
    elsewhere = tmp_path.parent / (tmp_path.name + "-gitdir")
    elsewhere.mkdir()
    _git(elsewhere, "init", "-q", "--bare")
    (elsewhere / "config").write_text("[core]\n\tfsmonitor = ./evil\n")
    (tmp_path / ".git").write_text(f"gitdir: {elsewhere}\n")
    assert verdict(bash, "git status") == "ask"
    (tmp_path / ".git").write_text("not a pointer\n")
    assert verdict(bash, "git status") == "ask"
    (tmp_path / ".git").unlink()
    for name in ("HEAD", "config"):  # the workspace itself shaped like a bare repository
        (tmp_path / name).write_text((elsewhere / name).read_text())
    (tmp_path / "objects").mkdir()
    (tmp_path / "refs").mkdir()
    assert verdict(bash, "git status") == "ask"
    assert verdict(bash, "ls") == "allow"


def test_safe_commands_false_in_config_turns_it_off(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("FLUE_HOME", str(home))
    home.mkdir()
    (home / "config.toml").write_text("[permissions]\nsafe_commands = false\n")
    assert load_config(str(tmp_path)).safe_commands is False
    (home / "config.toml").write_text("[permissions]\nsafe_commands = 1\n")
    with pytest.raises(Exception, match="safe_commands must be true or false"):
        load_config(str(tmp_path))
    # an untrusted project may turn it off, never back on
    (home / "config.toml").write_text("[permissions]\nsafe_commands = false\n")
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text("[permissions]\nsafe_commands = true\n")
    conf = load_config(str(tmp_path))
    assert conf.safe_commands is False and [h.key for h in conf.held] == ["[permissions] safe_commands = true"]
    assert load_config(str(tmp_path), trusted=True).safe_commands is True
    (home / "config.toml").write_text("")
    (tmp_path / ".flue" / "config.toml").write_text("[permissions]\nsafe_commands = false\n")
    conf = load_config(str(tmp_path))
    assert conf.safe_commands is False and not conf.held

    class S:
        cwd = str(tmp_path)
        permission_mode = "ask"

    assert build_policy(S(), conf).safe_commands is False


def test_print_mode_in_ask_runs_reads_and_refuses_rm(fakellm, flue_main, tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    calls = [
        Call("bash", {"command": "git status --short && ls"}, id="b1"),
        Call("bash", {"command": "rm a.txt"}, id="b2"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main("-p", "look", "--model", "openai/fake", "--permission-mode", "ask", "--output-format", "json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["b2"]
    texts = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert texts["b1"] == "?? a.txt\na.txt"
    assert texts["b2"] == no_ask_text("bash", "ask", ["bash(rm *)"])
    assert (tmp_path / "a.txt").exists()


def test_print_mode_does_not_run_a_repositorys_fsmonitor(fakellm, flue_main, tmp_path):
    _git(tmp_path, "init", "-q")
    evil = tmp_path / "evil.sh"
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/pwned"\n')
    evil.chmod(0o755)
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write(f"[core]\n\tfsmonitor = {evil}\n")
    fakellm.script([Turn(calls=[Call("bash", {"command": "git status"}, id="b1")]), Turn(text="done")])
    out = flue_main("-p", "look", "--model", "openai/fake", "--permission-mode", "ask", "--output-format", "json")
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()


def test_print_mode_in_plan_runs_what_ask_runs_unasked_and_refuses_the_rest(fakellm, flue_main, tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    _git(tmp_path, "add", "a.txt")
    (tmp_path / "a.txt").write_text("two\n")
    calls = [
        Call("bash", {"command": "git diff --stat"}, id="b1"),
        Call("bash", {"command": "touch made"}, id="b2"),
        Call("bash_background", {"command": "git log --oneline"}, id="b3"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main("-p", "look", "--model", "openai/fake", "--permission-mode", "plan", "--output-format", "json")
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b2"]
    texts = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert "a.txt | 2 +-" in texts["b1"] and "1 file changed" in texts["b1"]
    assert texts["b2"] == PLAN_TEXT.format(tool="bash")
    assert not (tmp_path / "made").exists()
