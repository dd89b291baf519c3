"""A plan-mode task of an `isolation: worktree` agent: the child cannot change a file, so it gets no
worktree (nothing is made, nothing left behind) and reads the parent's checkout; it stays in plan
mode for its whole run, even when the parent's mode is switched while it works (else its edits
would land in the parent's checkout, where the agent was meant never to write)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest

from flue_tui.config.settings import Settings
from flue_tui.permissions.policy import PLAN_TEXT, policy_of
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions
from tests.fakellm import Call, Turn
from tests.test_worktree import AGENT, MODEL, git
from tests.test_worktree import repo as repo  # the same one-commit repository fixture


def _agent(repo: Path) -> None:
    (repo / ".agents" / "agents").mkdir(parents=True)
    (repo / ".agents" / "agents" / "iso.md").write_text(AGENT)


def _tool_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_a_plan_mode_task_reads_the_parents_checkout_and_makes_no_worktree(fakellm, flue_main, repo: Path):
    _agent(repo)
    fakellm.script(
        [
            Turn(match="parent", calls=[Call("task", {"prompt": "child looks", "agent": "iso"})]),
            Turn(
                match="child looks",
                calls=[
                    Call("write", {"path": "new.txt", "content": "x\n"}),
                    Call("bash", {"command": "git status --short"}),
                ],
            ),
            Turn(match="child looks", text="looked"),
            Turn(match="parent", text="done"),
        ]
    )
    out = flue_main("-p", "parent", "--permission-mode", "plan", *MODEL, cwd=repo)
    assert out.code == 0, out.stderr
    child = [r for r in fakellm.requests if "child looks" in str(r["messages"][1])]
    assert str(repo) in child[0]["messages"][0]["content"] and "proj.worktrees" not in str(child)
    # the parent's checkout, with its untracked agent file: a fresh worktree of HEAD would be clean
    assert _tool_texts(child[1]) == [PLAN_TEXT.format(tool="write"), "?? .agents/"]
    assert _tool_texts(fakellm.requests[-1]) == ["looked"]  # no worktree to name
    assert not (repo / "new.txt").exists() and not (repo.parent / "proj.worktrees").exists()
    assert git(repo, "branch", "--list", "task-*").strip() == ""
    assert [d["tool_name"] for d in json.loads(out.stdout.splitlines()[-1])["permission_denials"]] == ["write"]


async def test_a_plan_mode_task_stays_read_only_when_the_mode_changes_under_it(
    fakellm, repo: Path, monkeypatch: pytest.MonkeyPatch
):
    _agent(repo)
    held = threading.Event()
    fakellm.script(
        [
            Turn(match="parent", calls=[Call("task", {"prompt": "child writes", "agent": "iso"})]),
            Turn(match="child writes", calls=[Call("write", {"path": "new.txt", "content": "x\n"})], hold=held),
            Turn(match="child writes", text="tried"),
            Turn(match="parent", text="done"),
        ]
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings = Settings.from_env(
        cwd=str(repo), api_base=fakellm.base_url, retry_base_ms=5, model="openai/fake", permission_mode="plan"
    )
    handle = SessionHandle(settings, SessionOptions(persist=False))
    started = await asyncio.to_thread(handle.start)
    try:
        run = asyncio.ensure_future(started.session.prompt("parent"))
        await asyncio.to_thread(fakellm.wait_for_requests, 2)  # the child's first turn is under way
        policy = policy_of(started.session)
        assert policy is not None
        policy.set_mode("yolo")
        held.set()
        await asyncio.wait_for(run, 120)
    finally:
        held.set()
        handle.close()
    child = [r for r in fakellm.requests if "child writes" in str(r["messages"][1])]
    assert _tool_texts(child[-1]) == [PLAN_TEXT.format(tool="write")]
    assert not (repo / "new.txt").exists() and not (repo.parent / "proj.worktrees").exists()
