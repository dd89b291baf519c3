"""The policy answers with a typed Decision (core/decision.py, pi-mono's beforeToolCall result as a
value): allow, maybe with a rewritten input as a new dict, or deny with the refusal. It never
changes the arguments it was handed, so what the model asked for stays on record."""

from __future__ import annotations

from flue_tui.core.decision import Decision
from flue_tui.permissions.policy import USER_TEXT, Approval, PermissionPolicy, no_ask_text
from tests.permissions.conftest import ScriptedAsker, run_calls


async def test_a_rewritten_input_is_a_new_value_and_the_model_s_arguments_stay(tools, tmp_path):
    asker = ScriptedAsker(Approval("once", updated_input={"path": "b.txt", "content": "theirs"}))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker)
    args = {"path": "a.txt", "content": "mine"}
    decision = await policy("write", args, tools["write"], "c1")
    assert decision == Decision("allow", args={"path": "b.txt", "content": "theirs"})
    assert args == {"path": "a.txt", "content": "mine"}  # untouched: no one mutates the caller's dict
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()  # deciding runs nothing


async def test_the_loop_runs_the_rewritten_input_and_records_the_model_s(tools, tmp_path):
    asker = ScriptedAsker(Approval("once", updated_input={"path": "b.txt", "content": "theirs"}))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker)
    (result,) = await run_calls(list(tools.values()), policy, ("write", {"path": "a.txt", "content": "mine"}))
    assert (tmp_path / "b.txt").read_text() == "theirs" and not (tmp_path / "a.txt").exists()
    assert result.outcome == "ok" and asker.requests[0].args == {"path": "a.txt", "content": "mine"}


async def test_refusals_are_deny_decisions_with_the_text_the_model_reads(tools, tmp_path):
    nobody = PermissionPolicy(mode="ask", root=str(tmp_path))
    # `make`, not `ls`: a read-only command runs unasked (permissions/readonly.py)
    assert await nobody("bash", {"command": "make"}, tools["bash"], "c1") == Decision(
        "deny", no_ask_text("bash", "ask", ["bash(make *)"])
    )
    refused = PermissionPolicy(mode="ask", root=str(tmp_path), asker=ScriptedAsker(Approval("deny")))
    assert await refused("bash", {"command": "make"}, tools["bash"], "c2") == Decision(
        "deny", USER_TEXT.format(tool="bash")
    )
    (result,) = await run_calls(list(tools.values()), nobody, ("bash", {"command": "touch x"}))
    assert result.outcome == "denied" and result.is_error and not (tmp_path / "x").exists()
    assert [d.tool_name for d in nobody.denials] == ["bash", "bash"]


async def test_a_rewritten_input_the_rules_deny_is_refused_like_the_model_s_own(tools, tmp_path):
    from flue_tui.permissions.rules import parse_rules

    asker = ScriptedAsker(Approval("once", updated_input={"path": "secret/x", "content": "x"}))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker, deny=parse_rules(["write(secret/**)"]))
    decision = await policy("write", {"path": "ok.txt", "content": "x"}, tools["write"], "c1")
    assert decision.verdict == "deny" and decision.args is None
    assert decision.reason == 'Permission denied: write is blocked by the rule "write(secret/**)".'
