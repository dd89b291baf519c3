"""A hostile repository or model against the read-only shortcut and the git config check (review).

A directory holding `HEAD` and `commondir` (no `config`, no `.git`) is a bare repository to git,
which reads the config `commondir` points at; the check wanted a `config` beside HEAD, so it looked
at no config, and accept-edits could write plain text files that made the next unasked
`git diff --no-index a b` run an external diff.

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


def _bare_via_commondir(root, program: str) -> dict[str, str]:
    """Plain text files (no `.git` anywhere) that git reads as a bare repository whose config,
    behind `commondir`, names an external diff: what the write tool may create in accept-edits."""
    return {
        "HEAD": "ref: refs/heads/main\n",
        "commondir": "common\n",
        "common/objects/.keep": "",
        "common/refs/.keep": "",
        "common/config": f"[diff]\n\texternal = {program}\n",
        "a.txt": "one\n",
        "b.txt": "two\n",
    }


def test_a_bare_repository_named_by_commondir_is_checked(bash, tmp_path):
    for name, text in _bare_via_commondir(tmp_path, "./evil").items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert repository_programs(str(tmp_path), False) == "its git config sets diff.external"
    assert verdict(bash, "git diff --no-index a.txt b.txt") == "ask"
    assert verdict(bash, "git diff --no-index a.txt b.txt", mode="accept-edits") == "ask"


def test_accept_edits_cannot_write_its_way_to_an_unasked_program(fakellm, flue_main, tmp_path):
    evil = tmp_path / "evil.sh"
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/pwned"\n')
    evil.chmod(0o755)
    files = _bare_via_commondir(tmp_path, str(evil))
    calls = [Call("write", {"path": name, "content": text}, id=f"w{i}") for i, (name, text) in enumerate(files.items())]
    bash = Call("bash", {"command": "git diff --no-index a.txt b.txt"}, id="b1")
    fakellm.script([Turn(calls=calls), Turn(calls=[bash]), Turn(text="done")])
    out = flue_main(
        "-p", "look", "--model", "openai/fake", "--permission-mode", "accept-edits", "--output-format", "json"
    )
    assert out.code == 0, out.stderr
    assert (tmp_path / "common" / "config").exists()  # the writes were allowed, as accept-edits does
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()


def test_a_command_is_judged_after_the_same_replys_writes_land(fakellm, flue_main, tmp_path):
    """Tools of one reply run at once; the command was judged before the writes beside it made
    the workspace a repository, and ran the diff they named once the slow first part was done."""
    evil = tmp_path / "evil.sh"
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/pwned"\n')
    evil.chmod(0o755)
    files = _bare_via_commondir(tmp_path, str(evil))
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(files.pop(name))
    calls = [Call("write", {"path": name, "content": text}, id=f"w{i}") for i, (name, text) in enumerate(files.items())]
    slow_then_diff = f"find /usr -name zzzz-none >/dev/null 2>&1; git diff --no-index {tmp_path}/a.txt {tmp_path}/b.txt"
    calls.append(Call("bash", {"command": slow_then_diff}, id="b1"))
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main(
        "-p", "look", "--model", "openai/fake", "--permission-mode", "accept-edits", "--output-format", "json"
    )
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()


def _nested_checkout(root) -> None:
    """A repository whose index holds a gitlink to `sub`, a nested checkout with its own `.git`
    directory (not under .git/modules), as a shared or unpacked workspace can come."""
    _git(root, "init", "-q")
    _git(root, "init", "-q", "sub")
    (root / "sub" / "f").write_text("x\n")
    _git(root / "sub", "add", "f")
    _git(root / "sub", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "s")
    _git(root, "add", "sub")


def test_a_nested_checkouts_config_is_checked(bash, tmp_path):
    _nested_checkout(tmp_path)
    assert verdict(bash, "git status") == "allow"  # a plain nested checkout runs nothing
    with open(tmp_path / "sub" / ".git" / "config", "a") as fh:
        fh.write("[core]\n\tfsmonitor = ./evil\n")
    assert repository_programs(str(tmp_path), False) == "its git config sets core.fsmonitor (in its submodule sub)"
    assert verdict(bash, "git status") == "ask"
    assert verdict(bash, "git status", allow=["bash(git status:*)"]) == "ask"
    _git(tmp_path, "update-index", "--index-version", "4")
    assert verdict(bash, "git status") == "ask"


def test_an_index_not_read_here_asks(bash, tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a\n")
    _git(tmp_path, "add", "a.txt")
    assert verdict(bash, "git status") == "allow"
    _git(tmp_path, "update-index", "--index-version", "4")  # prefix-compressed paths: read too
    assert verdict(bash, "git status") == "allow"
    _git(tmp_path, "update-index", "--index-version", "2")
    _git(tmp_path, "update-index", "--split-index")  # the entries are kept in another file
    assert verdict(bash, "git status") == "ask"
    (tmp_path / ".git" / "index").write_bytes(b"DIRC\0\0\0\x02\0\0\0\x05short")  # cut short
    assert verdict(bash, "git status") == "ask"


def test_print_mode_does_not_run_a_nested_checkouts_fsmonitor(fakellm, flue_main, tmp_path):
    _nested_checkout(tmp_path)
    evil = tmp_path / "evil.sh"
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/pwned"\n')
    evil.chmod(0o755)
    with open(tmp_path / "sub" / ".git" / "config", "a") as fh:
        fh.write(f"[core]\n\tfsmonitor = {evil}\n")
    (tmp_path / "sub" / "f").write_text("changed\n")
    fakellm.script([Turn(calls=[Call("bash", {"command": "git status"}, id="b1")]), Turn(text="done")])
    out = flue_main("-p", "look", "--model", "openai/fake", "--permission-mode", "ask", "--output-format", "json")
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("entry", ["bin", "", ".", "{root}/bin"])
def test_a_path_entry_in_the_workspace_turns_the_shortcut_off(bash, tmp_path, monkeypatch, entry):
    monkeypatch.setenv("PATH", entry.format(root=tmp_path) + ":" + os.environ["PATH"])
    assert verdict(bash, "ls") == "ask"
    assert verdict(bash, "git status", mode="accept-edits") == "ask"


def test_print_mode_does_not_run_a_repositorys_own_ls(fakellm, flue_main, flue_env, tmp_path):
    """`PATH=./node_modules/.bin:$PATH` (or `bin`, `.`) is common: a bare `ls` was the repository's."""
    (tmp_path / "bin").mkdir()
    evil = tmp_path / "bin" / "ls"
    evil.write_text('#!/bin/sh\ntouch "$(dirname "$0")/../pwned"\n')
    evil.chmod(0o755)
    fakellm.script([Turn(calls=[Call("bash", {"command": "ls"}, id="b1")]), Turn(text="done")])
    out = flue_main(
        "-p",
        "look",
        "--model",
        "openai/fake",
        "--permission-mode",
        "ask",
        "--output-format",
        "json",
        env={**flue_env, "PATH": "bin:" + flue_env["PATH"]},
    )
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()


BACKTICK_HEREDOCS = ["cat <<EOF\n`touch pwned`\nEOF", "cat <<-EOF | wc -l\n\tx `rm -rf x` y\nEOF"]


@pytest.mark.parametrize("command", BACKTICK_HEREDOCS)
def test_a_backtick_in_a_here_document_is_seen(bash, command):
    """tree-sitter parses `$(…)` in a here-document's body but not backticks, which bash runs."""
    assert verdict(bash, command) == "ask"
    assert verdict(bash, command, deny=["bash(rm *)"], mode="yolo") == "deny"  # a deny rule cannot see it
    assert verdict(bash, command, allow=["bash(cat *)", "bash(wc *)"]) == "ask"
    quoted = command.replace("<<EOF", "<<'EOF'").replace("<<-EOF", "<<-'EOF'")  # a literal body
    assert verdict(bash, quoted) == "allow"


def test_print_mode_does_not_run_a_backtick_in_a_here_document(fakellm, flue_main, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": BACKTICK_HEREDOCS[0]}, id="b1")]), Turn(text="done")])
    out = flue_main("-p", "look", "--model", "openai/fake", "--permission-mode", "ask", "--output-format", "json")
    assert out.code == 0, out.stderr
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b1"]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "command", ["tail -f log.txt", "tail -F log.txt", "tail -n 5 -f log.txt", "tail --follow=name x"]
)
def test_following_a_file_is_asked(bash, command):
    """bash has no timeout unless the model sets one: an unasked `tail -f` in `flue -p` never ended."""
    assert verdict(bash, command) == "ask"
    assert verdict(bash, "tail -n 5 log.txt") == "allow"
