"""Each mode's decisions, rules, asking, and what the model reads when a call is refused."""

from __future__ import annotations

import asyncio

import pytest

from flue_tui.core.decision import ALLOW
from flue_tui.permissions.policy import (
    PLAN_TEXT,
    Approval,
    PermissionPolicy,
    no_ask_text,
)
from flue_tui.permissions.rules import parse_rules
from tests.permissions.conftest import ScriptedAsker, run_calls

ARGS = {
    "read": {"path": "a.txt"},
    "grep": {"pattern": "x"},
    "glob": {"pattern": "*.txt"},
    "write": {"path": "new.txt", "content": "hi\n"},
    "edit": {"path": "a.txt", "oldText": "one", "newText": "two"},
    "bash": {"command": "npm test"},  # not read-only: `git status` runs unasked (test_read_only.py)
}
EXPECTED = {
    "ask": {"read": "allow", "grep": "allow", "glob": "allow", "write": "ask", "edit": "ask", "bash": "ask"},
    "accept-edits": {
        "read": "allow",
        "grep": "allow",
        "glob": "allow",
        "write": "allow",
        "edit": "allow",
        "bash": "ask",
    },
    "plan": {"read": "allow", "grep": "allow", "glob": "allow", "write": "deny", "edit": "deny", "bash": "deny"},
    "yolo": {"read": "allow", "grep": "allow", "glob": "allow", "write": "allow", "edit": "allow", "bash": "allow"},
}


@pytest.mark.parametrize("mode", list(EXPECTED))
@pytest.mark.parametrize("tool_name", list(ARGS))
def test_mode_decisions(mode, tool_name, tools, tmp_path):
    policy = PermissionPolicy(mode=mode, root=str(tmp_path))
    decision = policy.decide(tool_name, ARGS[tool_name], tools[tool_name])
    assert decision.verdict == EXPECTED[mode][tool_name]
    if decision.verdict == "deny":
        assert decision.reason == PLAN_TEXT.format(tool=tool_name)


async def test_plan_mode_refuses_with_a_clear_text_and_touches_nothing(tools, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    policy = PermissionPolicy(mode="plan", root=str(tmp_path))
    results = await run_calls(
        list(tools.values()),
        policy,
        ("read", ARGS["read"]),
        ("write", ARGS["write"]),
        ("edit", ARGS["edit"]),
        ("bash", {"command": "touch made"}),
    )
    assert [r.is_error for r in results] == [False, True, True, True]
    assert results[1].text == (
        "Permission denied: plan mode is read-only, so write cannot run. Describe the "
        "change or the command you would make instead."
    )
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "made").exists()


async def test_without_an_asker_ask_becomes_a_logged_denial(tools, tmp_path):
    policy = PermissionPolicy(mode="ask", root=str(tmp_path))  # print mode: nobody to ask
    results = await asyncio.wait_for(
        run_calls(list(tools.values()), policy, ("bash", {"command": "touch made"}), ("glob", {"pattern": "*"})), 5
    )
    assert results[0].is_error and results[0].text == no_ask_text("bash", "ask", ["bash(touch *)"])
    assert not results[1].is_error
    assert [d.to_dict() for d in policy.denials] == [
        {"tool_name": "bash", "tool_use_id": results[0].tool_call_id, "tool_input": {"command": "touch made"}}
    ]
    assert not (tmp_path / "made").exists()


def test_deny_rules_apply_in_every_mode_even_yolo(tools, tmp_path):
    policy = PermissionPolicy(mode="yolo", root=str(tmp_path), deny=parse_rules(["bash(git push *)", "Write"]))
    push = policy.decide("bash", {"command": "git status && git push origin main"}, tools["bash"])
    assert push.verdict == "deny"
    assert push.reason == 'Permission denied: bash is blocked by the rule "bash(git push *)".'
    assert policy.decide("write", ARGS["write"], tools["write"]).verdict == "deny"
    assert policy.decide("bash", {"command": "git status"}, tools["bash"]).verdict == "allow"


def test_allow_rules_skip_the_question_but_must_cover_every_command(tools, tmp_path):
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), allow=parse_rules(["bash(git *)", "edit(src/*)"]))
    assert policy.decide("bash", {"command": "git status --short"}, tools["bash"]).verdict == "allow"
    assert policy.decide("bash", {"command": "git"}, tools["bash"]).verdict == "allow"
    assert policy.decide("bash", {"command": "git status; rm -rf x"}, tools["bash"]).verdict == "ask"
    assert policy.decide("bash", {"command": "git log $(rm x)"}, tools["bash"]).verdict == "ask"
    assert policy.decide("edit", {**ARGS["edit"], "path": "src/m.py"}, tools["edit"]).verdict == "allow"
    assert policy.decide("edit", {**ARGS["edit"], "path": "src/../../etc/x"}, tools["edit"]).verdict == "ask"
    assert policy.decide("write", ARGS["write"], tools["write"]).verdict == "ask"


def test_deny_beats_allow_and_plan_beats_allow(tools, tmp_path):
    policy = PermissionPolicy(
        mode="ask", root=str(tmp_path), allow=parse_rules(["bash"]), deny=parse_rules(["bash(rm *)"])
    )
    assert policy.decide("bash", {"command": "ls && sudo rm -rf x"}, tools["bash"]).verdict == "deny"
    policy.set_mode("plan")
    assert policy.decide("bash", {"command": "make"}, tools["bash"]).verdict == "deny"
    assert policy.decide("bash", {"command": "ls"}, tools["bash"]).verdict == "allow"  # read-only, as in ask


async def test_allow_once_runs_and_asks_again_next_time(tools, tmp_path):
    asker = ScriptedAsker(Approval("once"), Approval("once"))
    # the asking itself, with read-only commands (echo, git status, ls) asked like any other
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker, safe_commands=False)
    results = await run_calls(
        list(tools.values()), policy, ("bash", {"command": "echo one"}), ("bash", {"command": "echo two"})
    )
    assert [r.text for r in results] == ["one", "two"]
    assert [r.body for r in asker.requests] == ["echo one", "echo two"]
    request = asker.requests[0]
    assert request.tool_name == "bash" and request.tool_use_id == results[0].tool_call_id
    assert request.body_kind == "command" and request.session_rules == ("bash(echo *)",)
    assert policy.denials == []


async def test_allow_for_session_remembers_the_command_prefix(tools, tmp_path):
    asker = ScriptedAsker(Approval("session"), Approval("deny"))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker, safe_commands=False)
    results = await run_calls(
        list(tools.values()),
        policy,
        ("bash", {"command": "git status"}),
        ("bash", {"command": "git status --short"}),
        ("bash", {"command": "git push"}),
    )
    assert len(asker.requests) == 2  # the second git status ran without a question
    assert asker.requests[1].body == "git push"
    assert [r.is_error for r in results] == [False, False, True]
    assert [r.text for r in policy.session_allow] == ["bash(git status *)"]


async def test_allow_for_session_of_an_edit_covers_write_and_edit(tools, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    asker = ScriptedAsker(Approval("session"))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker)
    results = await run_calls(list(tools.values()), policy, ("edit", ARGS["edit"]), ("write", ARGS["write"]))
    assert [r.is_error for r in results] == [False, False]
    assert len(asker.requests) == 1
    request = asker.requests[0]
    assert request.title == "Edit file a.txt" and request.body_kind == "diff"
    assert "-one" in request.body and "+two" in request.body
    assert request.session_rules == ("write", "edit")


async def test_write_request_shows_the_diff_against_the_current_file(tools, tmp_path):
    (tmp_path / "new.txt").write_text("old\n")
    asker = ScriptedAsker(Approval("once"))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker)
    await run_calls(list(tools.values()), policy, ("write", ARGS["write"]))
    body = asker.requests[0].body
    assert body.splitlines()[:2] == ["--- a/new.txt", "+++ b/new.txt"]
    assert "-old" in body and "+hi" in body


async def test_deny_with_a_note_tells_the_model_why(tools, tmp_path):
    asker = ScriptedAsker(Approval("deny", note="use the Makefile target instead"), Approval("deny"))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker)
    results = await run_calls(
        list(tools.values()), policy, ("bash", {"command": "touch made"}), ("write", ARGS["write"])
    )
    assert results[0].is_error and results[0].text == (
        "Permission denied: the user refused this bash call. Their note: use the Makefile target instead"
    )
    assert results[1].text == "Permission denied: the user refused this write call."
    assert not (tmp_path / "made").exists() and not (tmp_path / "new.txt").exists()
    assert [d.tool_name for d in policy.denials] == ["bash", "write"]


async def test_concurrent_questions_are_asked_one_at_a_time(tools, tmp_path):
    open_now = 0
    peak = 0
    seen: list[str] = []

    async def slow_asker(request):
        nonlocal open_now, peak
        open_now += 1
        peak = max(peak, open_now)
        seen.append(request.body)
        await asyncio.sleep(0.05)
        open_now -= 1
        return Approval("session")

    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=slow_asker, safe_commands=False)
    answers = await asyncio.gather(
        *(policy("bash", {"command": c}, tools["bash"], f"c{i}") for i, c in enumerate(["ls a", "ls b", "pwd"]))
    )
    assert answers == [ALLOW, ALLOW, ALLOW]
    assert peak == 1
    assert seen == ["ls a", "pwd"]  # the session answer for `ls` settled "ls b" without a question


def test_modes_cycle_and_notify(tmp_path):
    policy = PermissionPolicy(mode="ask", root=str(tmp_path))
    heard: list[str] = []
    policy.listeners.append(heard.append)
    assert [policy.cycle_mode() for _ in range(3)] == ["accept-edits", "plan", "ask"]
    policy.set_mode("yolo")
    assert policy.cycle_mode() == "ask"
    assert heard == ["accept-edits", "plan", "ask", "yolo", "ask"]
    with pytest.raises(ValueError, match="unknown permission mode 'sudo'"):
        policy.set_mode("sudo")
    with pytest.raises(ValueError):
        PermissionPolicy(mode="auto")


@pytest.mark.parametrize("mode", ["ask", "plan"])
def test_an_ask_rule_asks_for_a_read_only_command_in_plan_mode_as_in_ask(tools, tmp_path, mode):
    policy = PermissionPolicy(mode=mode, root=str(tmp_path), ask=parse_rules(["bash(git diff *)"]))
    assert policy.decide("bash", {"command": "git diff"}, tools["bash"]).verdict == "ask"
    assert policy.decide("bash", {"command": "git status"}, tools["bash"]).verdict == "allow"


def test_a_held_policy_keeps_its_mode_and_shares_everything_else(tools, tmp_path):
    policy = PermissionPolicy(mode="plan", root=str(tmp_path), deny=parse_rules(["bash(rm *)"]))
    held = policy.held("plan")
    policy.set_mode("yolo")
    assert held.mode == "plan" and held.decide("write", ARGS["write"], tools["write"]).verdict == "deny"
    rm = held.decide("bash", {"command": "rm x"}, tools["bash"])
    assert rm.reason == 'Permission denied: bash is blocked by the rule "bash(rm *)".'
    policy.allow_for_session(["read"])
    assert held.session_allow is policy.session_allow and held.denials is policy.denials
    assert held.listeners == [] and held._asking is policy._asking is not None
