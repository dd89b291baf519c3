"""A write into `.git` (config, hooks, info/attributes) can make the next allowed `git status` run
a command (core.fsmonitor, hooks, filters): it always asks, past accept-edits and allow rules, and
is refused where no one can be asked. Only yolo lets it through, as in Flue."""

from __future__ import annotations

import json
import os

import pytest

from flue_tui.permissions.policy import PermissionPolicy
from flue_tui.permissions.rules import parse_rules
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from tests.fakellm import Call, Turn
from tests.permissions.conftest import run_calls

HOOK = "[core]\n\tfsmonitor = touch pwned\n"
WRITES = [
    ("write", {"path": ".git/config", "content": HOOK}),
    ("write", {"path": "sub/../.git/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}),
    ("write", {"path": ".git/info/attributes", "content": "* filter=evil\n"}),
    ("write", {"path": "vendor/lib/.git/config", "content": HOOK}),  # a nested repository counts too
    ("write", {"path": "link/config", "content": HOOK}),  # a symlink into .git
    ("edit", {"path": ".git/config", "oldText": "[core]", "newText": "[core]\n\tfsmonitor = touch pwned"}),
    ("bash", {"command": "echo '[core] fsmonitor = touch pwned' >> .git/config"}),
]


@pytest.fixture
def tools(tmp_path):
    return {t.name: t for t in builtin_tools(LocalSandbox(str(tmp_path)))}


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "info").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "vendor" / "lib" / ".git").mkdir(parents=True)
    os.symlink(tmp_path / ".git", tmp_path / "link")
    return tmp_path


def policies(root) -> list[PermissionPolicy]:
    rules = parse_rules(["write", "edit", "write(*)", "edit(.git/*)", "bash(echo *)"])
    return [
        PermissionPolicy(mode="accept-edits", root=str(root)),
        PermissionPolicy(mode="accept-edits", root=str(root), allow=rules),
        PermissionPolicy(mode="ask", root=str(root), allow=rules),
    ]


@pytest.mark.parametrize("call", WRITES, ids=[f"{n}:{a.get('path') or a['command']}" for n, a in WRITES])
def test_a_change_inside_git_always_asks(call, repo, tools):
    name, args = call
    for policy in policies(repo):
        decision = policy.decide(name, args, tools[name])
        assert decision.verdict == "ask", (policy.mode, policy.allow)
        assert decision.reason and ".git directory" in decision.reason
    assert PermissionPolicy(mode="yolo", root=str(repo)).decide(name, args, tools[name]).verdict == "allow"
    assert PermissionPolicy(mode="plan", root=str(repo)).decide(name, args, tools[name]).verdict == "deny"


def test_ordinary_writes_are_unchanged(repo, tools):
    policy = PermissionPolicy(mode="accept-edits", root=str(repo), allow=parse_rules(["bash(echo *)"]))
    for name, args in [
        ("write", {"path": ".github/workflows/ci.yml", "content": "x"}),
        ("write", {"path": "src/git/config.py", "content": "x"}),
        ("write", {"path": ".gitignore", "content": "x"}),
        ("bash", {"command": "echo hi > notes.txt"}),
    ]:
        assert policy.decide(name, args, tools[name]).verdict == "allow", args


async def test_without_an_asker_the_change_is_refused_and_git_is_untouched(repo, tools):
    policy = PermissionPolicy(mode="accept-edits", root=str(repo), allow=parse_rules(["write", "bash(echo *)"]))
    results = await run_calls(list(tools.values()), policy, *WRITES, cwd=str(repo))
    assert all(r.is_error and ".git directory" in r.text for r in results), [r.text for r in results]
    assert (repo / ".git" / "config").read_text() == "[core]\n"
    assert not (repo / ".git" / "hooks" / "pre-commit").exists() and not (repo / "vendor/lib/.git/config").exists()
    assert len(policy.denials) == len(WRITES)


def test_print_mode_in_accept_edits_refuses_a_git_config_write(fakellm, flue_main, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    calls = [
        Call("write", {"path": ".git/config", "content": HOOK}, id="w1"),
        Call("write", {"path": "ok.txt", "content": "fine\n"}, id="w2"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main(
        "-p",
        "go",
        "--model",
        "openai/fake",
        "--permission-mode",
        "accept-edits",
        "--allowed-tools",
        "write",
        "--output-format",
        "json",
    )
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["permission_denials"] == [
        {"tool_name": "write", "tool_use_id": "w1", "tool_input": {"path": ".git/config", "content": HOOK}}
    ]
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n" and (tmp_path / "ok.txt").exists()
    texts = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert ".git directory" in texts["w1"]
