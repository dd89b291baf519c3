"""Worktree sessions through the real CLI: `flue -p -w NAME` creates the worktree and its session,
runs again in it (the session resumed), `flue sessions list` and `flue worktree list` show it,
`flue worktree remove` refuses a dirty one and removes a clean one. Then the hostile names and
paths: `..`, `/`, a leading `-`, spaces, non-UTF-8, something else already at the path, a
symlink there, no repository, a branch that already exists (checked out elsewhere or not)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fakellm import Call, Turn

MODEL = ("--model", "openai/fake", "--output-format", "json")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("hello\n")
    git(root, "add", "README")
    git(root, "commit", "-q", "-m", "init")
    return root


def result_of(out) -> dict:
    assert out.code == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_a_worktree_session_is_created_resumed_listed_and_removed(fakellm, flue_main, repo: Path):
    fakellm.script([Turn(text="Noted: walrus."), Turn(text="It was walrus.")])
    tree = repo.parent / "proj.worktrees" / "feat"
    first = flue_main("-p", "remember walrus", "-w", "feat", *MODEL, cwd=repo)
    assert "created the worktree feat" in first.stderr
    one = result_of(first)
    assert (tree / "README").read_text() == "hello\n"
    assert git(tree, "branch", "--show-current").strip() == "feat"
    # The session runs in the worktree: its system prompt names that directory.
    assert str(tree) in fakellm.requests[0]["messages"][0]["content"]

    second = flue_main("-p", "what was it?", "--worktree", "feat", *MODEL, cwd=repo)
    assert "created" not in second.stderr  # reused
    assert result_of(second)["session_id"] == one["session_id"]
    assert [m.get("content") for m in fakellm.requests[1]["messages"][1:]] == [
        "remember walrus",
        "Noted: walrus.",
        "what was it?",
    ]

    listed = flue_main("sessions", "list", cwd=repo)
    assert listed.code == 0, listed.stderr
    assert "feat" in listed.stdout and "proj.worktrees/feat" in listed.stdout
    here = json.loads(flue_main("sessions", "list", "--json", cwd=repo).stdout)
    assert [(s["name"], s["cwd"]) for s in here] == [("feat", str(tree))]

    trees = flue_main("worktree", "list", cwd=repo)
    assert trees.code == 0 and "feat" in trees.stdout and "clean" in trees.stdout, trees.stdout

    (tree / "new.txt").write_text("work\n")
    refused = flue_main("worktree", "remove", "feat", cwd=repo)
    assert refused.code == 1
    assert refused.stderr.strip() == (
        "flue: The worktree feat has uncommitted changes (1 file); commit or discard them first."
    )
    assert tree.is_dir() and (tree / "new.txt").exists()  # nothing lost
    assert "1 changed" in flue_main("worktree", "list", cwd=repo).stdout

    (tree / "new.txt").unlink()
    gone = flue_main("worktree", "remove", "feat", cwd=repo)
    assert gone.code == 0, gone.stderr
    assert "Removed the worktree feat" in gone.stdout and "branch feat stays" in gone.stdout
    assert not tree.exists()
    assert not tree.parent.exists()  # the last worktree took the empty proj.worktrees with it
    assert "feat" in git(repo, "branch", "--list", "feat")  # the branch (and its commits) stay
    assert "No worktree sessions" in flue_main("worktree", "list", cwd=repo).stdout


def test_the_worktrees_folder_goes_only_when_nothing_else_is_in_it(fakellm, flue_main, repo: Path):
    fakellm.script([Turn(text="one"), Turn(text="two")])
    home = repo.parent / "proj.worktrees"
    for name in ("a", "b"):
        result_of(flue_main("-p", "hi", "-w", name, "--permission-mode", "ask", *MODEL, cwd=repo))
    assert flue_main("worktree", "remove", "a", cwd=repo).code == 0
    assert sorted(p.name for p in home.iterdir()) == ["b"]  # another worktree: it stays
    (home / "notes.txt").write_text("mine\n")
    assert flue_main("worktree", "remove", "b", cwd=repo).code == 0
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt"]  # someone's file: it stays, untouched
    assert (home / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("name", ["..", "a/b", "../x", "-rf", "has space", "a..b", "x.lock", "", "é"])
def test_a_bad_name_gets_one_sentence_and_touches_nothing(flue_main, repo: Path, name: str):
    out = flue_main("-p", "hi", f"--worktree={name}", *MODEL, cwd=repo)  # `=`: a leading "-" reaches flue
    assert out.code == 2
    assert "may use only letters, digits" in out.stderr and "Traceback" not in out.stderr
    assert not (repo.parent / "proj.worktrees").exists()
    assert git(repo, "worktree", "list").count("\n") == 1


def test_a_non_utf8_name_is_refused(repo: Path):
    # argv bytes need a process of their own: the name reaches flue as surrogates.
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "flue_tui", "worktree", "remove", os.fsdecode(b"bad\xff")],
        cwd=repo,
        capture_output=True,
        timeout=180,
    )
    assert proc.returncode == 1
    err = proc.stderr.decode("utf-8")
    assert err.count("\n") == 1 and "bad\ufffd" in err and "may use only letters" in err


def test_what_is_already_at_the_path_is_refused_never_reused(fakellm, flue_main, repo: Path, tmp_path: Path):
    home = repo.parent / "proj.worktrees"
    home.mkdir()
    (home / "plain").mkdir()
    (home / "plain" / "mine.txt").write_text("keep\n")
    out = flue_main("-p", "hi", "-w", "plain", *MODEL, cwd=repo)
    assert out.code == 2 and "something git does not know as a worktree" in out.stderr, out.stderr
    assert (home / "plain" / "mine.txt").read_text() == "keep\n"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "link").symlink_to(elsewhere)
    out = flue_main("-p", "hi", "-w", "link", *MODEL, cwd=repo)
    assert out.code == 2 and "is a symlink" in out.stderr
    assert list(elsewhere.iterdir()) == []
    assert fakellm.requests == []


def test_a_symlinked_worktrees_directory_is_refused(flue_main, repo: Path, tmp_path: Path):
    target = tmp_path / "target"
    target.mkdir()
    (repo.parent / "proj.worktrees").symlink_to(target)
    out = flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo)
    assert out.code == 2 and "is a symlink" in out.stderr
    assert list(target.iterdir()) == []


def test_acp_takes_no_worktree(flue_main, repo: Path):
    out = flue_main("--acp", "-w", "feat", cwd=repo)
    assert out.code == 2 and "it takes no --worktree" in out.stderr
    assert not (repo.parent / "proj.worktrees").exists()


def test_no_repository(flue_main, tmp_path: Path):
    bare = tmp_path / "plain-dir"
    bare.mkdir()
    out = flue_main(
        "-p", "hi", "-w", "feat", *MODEL, cwd=bare, env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    )
    assert out.code == 2
    assert "is not inside a git repository, which worktree sessions need" in out.stderr
    listed = flue_main("worktree", "list", cwd=bare, env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert listed.code == 1 and listed.stderr.count("\n") == 1


def test_an_existing_branch_is_checked_out_and_one_in_use_is_refused(fakellm, flue_main, repo: Path):
    fakellm.script([Turn(text="ok")])
    git(repo, "branch", "topic")
    (repo / "README").write_text("changed on main\n")
    git(repo, "commit", "-q", "-am", "main moves on")
    result_of(flue_main("-p", "hi", "-w", "topic", *MODEL, cwd=repo))
    tree = repo.parent / "proj.worktrees" / "topic"
    assert (tree / "README").read_text() == "hello\n"  # the branch's own commit, not main's
    # `main` is checked out in the repository itself: git refuses, flue says so in one sentence.
    out = flue_main("-p", "hi", "-w", "main", *MODEL, cwd=repo)
    assert (
        out.code == 2
        and f"Could not create the worktree main: 'main' is already checked out at '{repo}'." in out.stderr
    )
    assert out.stderr.strip().count("\n") == 0 and not (repo.parent / "proj.worktrees" / "main").exists()


def test_a_worktree_deleted_by_hand_is_made_again(fakellm, flue_main, repo: Path):
    import shutil

    fakellm.script([Turn(text="one"), Turn(text="two")])
    result_of(flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo))
    tree = repo.parent / "proj.worktrees" / "feat"
    shutil.rmtree(tree)
    again = flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo)
    result_of(again)
    assert (tree / "README").exists()


AGENT = "---\nname: iso\ndescription: Works apart\nisolation: worktree\n---\nYou work in your own checkout.\n"


def test_an_isolated_agent_works_in_a_worktree_kept_only_when_it_changed_something(fakellm, flue_main, repo: Path):
    agents = repo / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "iso.md").write_text(AGENT)
    git(repo, "add", ".agents")
    git(repo, "commit", "-q", "-m", "agent")
    fakellm.script(
        [
            Turn(match="parent one", calls=[Call("task", {"prompt": "child writes", "agent": "iso"})]),
            Turn(match="child writes", calls=[Call("write", {"path": "new.txt", "content": "from the child\n"})]),
            Turn(match="child writes", text="wrote it"),
            Turn(match="parent one", text="done"),
            Turn(match="parent two", calls=[Call("task", {"prompt": "child looks", "agent": "iso"})]),
            Turn(match="child looks", text="nothing to do"),
            Turn(match="parent two", text="done"),
            Turn(match="parent three", calls=[Call("task", {"prompt": "x", "agent": "iso", "cwd": "../.."})]),
            Turn(match="parent three", text="done"),
        ]
    )
    result_of(flue_main("-p", "--permission-mode", "yolo", "parent one", *MODEL, cwd=repo))
    assert not (repo / "new.txt").exists()  # the child's write went to its own checkout
    home = repo.parent / "proj.worktrees"
    (kept,) = list(home.iterdir())
    assert kept.name.startswith("task-") and (kept / "new.txt").read_text() == "from the child\n"
    answer = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"][0]
    assert (
        answer
        == f"wrote it\n\n(This task worked in the git worktree {kept}, on branch {kept.name}; its changes are there.)"
    )
    assert kept.name in flue_main("worktree", "list", cwd=repo).stdout

    result_of(flue_main("-p", "--permission-mode", "yolo", "parent two", *MODEL, cwd=repo))
    answer = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"][0]
    assert answer == "nothing to do"  # unchanged: the worktree and its branch went again
    assert list(home.iterdir()) == [kept]
    assert git(repo, "branch", "--list", "--format=%(refname:short)", "task-*").split() == [kept.name]

    result_of(flue_main("-p", "--permission-mode", "yolo", "parent three", *MODEL, cwd=repo))
    answer = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"][0]
    assert answer == 'Agent "iso" works in a worktree of its own: its cwd must stay inside it.'
    assert list(home.iterdir()) == [kept]


def test_a_task_worktree_left_unchanged_goes_and_the_empty_folder_with_it(fakellm, flue_main, repo: Path):
    (repo / ".agents" / "agents").mkdir(parents=True)
    (repo / ".agents" / "agents" / "iso.md").write_text(AGENT)
    fakellm.script(
        [
            Turn(match="parent", calls=[Call("task", {"prompt": "child looks", "agent": "iso"})]),
            Turn(match="child looks", text="nothing to do"),
            Turn(match="parent", text="done"),
        ]
    )
    result_of(flue_main("-p", "parent", "--permission-mode", "yolo", *MODEL, cwd=repo))
    child = next(r for r in fakellm.requests if "child looks" in str(r["messages"]))
    assert f"{repo.parent / 'proj.worktrees'}/task-" in child["messages"][0]["content"]  # it ran in one
    assert not (repo.parent / "proj.worktrees").exists()
    assert git(repo, "branch", "--list", "task-*").strip() == ""


def test_an_isolated_agent_outside_a_repository_gets_one_sentence(fakellm, flue_main, flue_env, tmp_path: Path):
    work = tmp_path / "nogit"
    (work / ".agents" / "agents").mkdir(parents=True)
    (work / ".agents" / "agents" / "iso.md").write_text(AGENT)
    fakellm.script(
        [Turn(match="go", calls=[Call("task", {"prompt": "x", "agent": "iso"})]), Turn(match="go", text="ok")]
    )
    env = {**flue_env, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    result_of(flue_main("-p", "go", *MODEL, cwd=work, env=env))
    answer = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"][0]
    assert answer.startswith('Agent "iso" needs a worktree of its own: ') and "not inside a git repository" in answer


def test_an_unknown_isolation_is_a_skipped_agent_with_its_reason(tmp_path: Path):
    from flue_tui.context.subagents import discover_roster

    agents = tmp_path / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "odd.md").write_text(AGENT.replace("isolation: worktree", "isolation: container"))
    roster = discover_roster(str(tmp_path))
    assert roster.names == ["flue-general"]
    assert roster.warnings == [
        f'[flue] Skipping invalid agent "odd.md": [flue] Agent {agents / "odd.md"} frontmatter isolation '
        'must be "worktree" when provided.'
    ]


def test_a_worktree_whose_creation_was_killed_is_not_used(fakellm, flue_main, repo: Path):
    # What `git worktree add` leaves when killed before its checkout ends: the worktree registered
    # and locked "initializing" (git removes that lock as its last step).
    fakellm.script([Turn(text="ok")])
    result_of(flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo))
    (repo / ".git" / "worktrees" / "feat" / "locked").write_text("initializing")
    out = flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo)
    tree = repo.parent / "proj.worktrees" / "feat"
    assert out.code == 2
    assert out.stderr.strip() == (
        f"flue: The worktree feat was left half-made (its creation was stopped); "
        f"remove it with: git worktree remove --force {tree}"
    ), out.stderr
    assert len(fakellm.requests) == 1


@pytest.mark.parametrize("kind", ["smudge", "process", "clean"])
def test_a_repositorys_own_filter_never_runs_when_a_worktree_is_made_or_removed(
    fakellm, flue_main, repo: Path, tmp_path: Path, kind: str
):
    # A repository's .git/config (an unpacked archive, a copied directory) names a filter driver
    # and .gitattributes applies it: git's checkout in `worktree add` and `status` in `worktree
    # remove` would run it. flue turns off the drivers the repository's own config defines, as it
    # does its hooks and core.fsmonitor; the user's own (global) drivers stay.
    mark = tmp_path / "ran"
    (repo / ".gitattributes").write_text("* filter=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attrs")
    git(repo, "config", f"filter.evil.{kind}", f"touch {mark}; cat")
    git(repo, "config", "filter.evil.required", "true")
    fakellm.script([Turn(text="ok")])
    result_of(flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo))
    tree = repo.parent / "proj.worktrees" / "feat"
    assert (tree / "README").read_text() == "hello\n"
    out = flue_main("worktree", "remove", "feat", cwd=repo)
    assert out.code == 0, out.stderr
    assert not tree.exists()
    assert not mark.exists()


def test_a_repositorys_hooks_and_submodule_recursion_stay_off(fakellm, flue_main, repo: Path, tmp_path: Path):
    mark = tmp_path / "ran"
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {mark}\n")
    hook.chmod(0o755)
    git(repo, "config", "core.fsmonitor", f"touch {mark}; false")
    git(repo, "config", "submodule.recurse", "true")
    fakellm.script([Turn(text="ok")])
    result_of(flue_main("-p", "hi", "-w", "feat", *MODEL, cwd=repo))
    assert flue_main("worktree", "remove", "feat", cwd=repo).code == 0
    assert not mark.exists()


def test_a_name_git_refuses_as_a_branch_gets_gits_reason(flue_main, repo: Path):
    # git prints "Preparing worktree …" before its fatal line: the sentence is the reason, not that.
    out = flue_main("-p", "hi", "-w", "HEAD", *MODEL, cwd=repo)
    assert out.code == 2
    assert out.stderr.strip() == "flue: Could not create the worktree HEAD: 'HEAD' is not a valid branch name.", (
        out.stderr
    )
