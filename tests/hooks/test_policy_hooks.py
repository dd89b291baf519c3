"""A hook's answers at the policy seam with someone to ask (the app, inline mode, an SDK client):
`ask` asks even where the mode allows, `allow` skips the question the mode would ask, and an
always-ask place is asked about whatever a hook says."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from flue_tui.hooks.config import HookSetup, parse
from flue_tui.hooks.events import Hooks
from flue_tui.permissions.policy import Approval, PermissionPolicy
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from tests.permissions.conftest import ScriptedAsker, run_calls


def _hooks(tmp_path: Path, decision: str) -> Hooks:
    script = tmp_path / f"{decision}.py"
    script.write_text(
        "import json\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
        f"'permissionDecision': {decision!r}, 'permissionDecisionReason': 'hook says {decision}'}}}}))\n"
    )
    table = {"PreToolUse": [{"matcher": "*", "hooks": [{"command": f"{sys.executable} {script}"}]}]}
    return Hooks(HookSetup(tuple(parse(json.loads(json.dumps(table)), "test"))), str(tmp_path))


async def test_a_hooks_ask_asks_in_yolo(tmp_path):
    tools = {t.name: t for t in builtin_tools(LocalSandbox(str(tmp_path)))}
    asker = ScriptedAsker(Approval("deny"))
    policy = PermissionPolicy(mode="yolo", root=str(tmp_path), asker=asker, hooks=_hooks(tmp_path, "ask"))
    [result] = await run_calls(list(tools.values()), policy, ("bash", {"command": "touch made"}), cwd=str(tmp_path))
    assert result.is_error and len(asker.requests) == 1
    assert not (tmp_path / "made").exists()


async def test_a_hooks_allow_skips_the_question_but_not_for_git(tmp_path):
    tools = {t.name: t for t in builtin_tools(LocalSandbox(str(tmp_path)))}
    (tmp_path / ".git").mkdir()
    asker = ScriptedAsker(Approval("deny"))
    policy = PermissionPolicy(mode="ask", root=str(tmp_path), asker=asker, hooks=_hooks(tmp_path, "allow"))
    results = await run_calls(
        list(tools.values()),
        policy,
        ("bash", {"command": "touch made"}),
        ("write", {"path": ".git/hooks/pre-commit", "content": "evil"}),
        cwd=str(tmp_path),
    )
    assert (tmp_path / "made").exists() and not results[0].is_error
    assert results[1].is_error and [r.tool_name for r in asker.requests] == ["write"]
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()
