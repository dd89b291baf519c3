"""The Agent SDK's `updatedInput` (an allow that changes the call): the new arguments are checked
exactly like the model's own, through the real tool runner, policy and workspace guard."""

from __future__ import annotations

from pathlib import Path

from flue_tui.permissions.policy import Approval, PermissionPolicy
from flue_tui.permissions.rules import parse_rules
from flue_tui.sandbox.workspace import WorkspaceGuard, WorkspaceSandbox
from flue_tui.tools import builtin_tools
from tests.permissions.conftest import ScriptedAsker, run_calls


def _policy(ws: Path, *answers: Approval) -> PermissionPolicy:
    return PermissionPolicy(
        mode="ask",
        root=str(ws),
        guard=WorkspaceGuard(str(ws)),
        deny=parse_rules(["bash(git push *)"]),
        asker=ScriptedAsker(*answers),
    )


async def test_updated_input_runs_instead(tmp_path):
    policy = _policy(tmp_path, Approval("once", updated_input={"command": "echo safer"}))
    [result] = await run_calls(
        builtin_tools(WorkspaceSandbox(str(tmp_path), root=str(tmp_path))),
        policy,
        ("bash", {"command": "echo risky"}),
        cwd=str(tmp_path),
    )
    assert result.text == "safer" and not result.is_error


async def test_updated_input_cannot_slip_past_a_deny_rule_the_guard_or_the_schema(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("secret\n")
    policy = _policy(
        ws,
        Approval("once", updated_input={"command": "git push origin main"}),
        Approval("once", updated_input={"path": "../secret.txt", "content": "pwned"}),
        Approval("once", updated_input={"command": ["not", "a", "string"]}),
    )
    results = await run_calls(
        builtin_tools(WorkspaceSandbox(str(ws), root=str(ws))),
        policy,
        ("bash", {"command": "git fetch"}),  # not read-only: asked (git status would run unasked)
        ("write", {"path": "ok.txt", "content": "x"}),
        ("bash", {"command": "make"}),
        cwd=str(ws),
    )
    assert results[0].text == 'Permission denied: bash is blocked by the rule "bash(git push *)".'
    assert results[1].text == "path escapes workspace boundary: ../secret.txt"
    assert results[2].is_error and results[2].text.startswith("Validation failed")
    assert (tmp_path / "secret.txt").read_text() == "secret\n" and not (ws / "ok.txt").exists()
    assert len(policy.denials) == 3
