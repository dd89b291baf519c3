"""Fixtures for the permission tests: real tools over a real sandbox in tmp_path, and a way to run
a batch of calls through the loop's own tool runner (validation, before_tool, execution)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from flue_tui.agent.seams import Seams
from flue_tui.agent.session import Session
from flue_tui.agent.toolrun import run_tool_batch
from flue_tui.core.abort import AbortSignal
from flue_tui.core.messages import ToolCall
from flue_tui.permissions.policy import Approval, ApprovalRequest, PermissionPolicy
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools

_ids = itertools.count(1)


@pytest.fixture
def tools(tmp_path) -> dict[str, Any]:
    return {t.name: t for t in builtin_tools(LocalSandbox(str(tmp_path)))}


class ScriptedAsker:
    """A front end that answers approval requests from a list, recording what it was shown."""

    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.requests.append(request)
        return self.answers.pop(0)


async def run_calls(
    tool_list: list[Any], policy: PermissionPolicy | None, *calls: tuple[str, dict[str, Any]], cwd: str = "."
) -> list[Any]:
    """Run the calls as one model turn's batch; returns the ToolResultMessages in call order."""
    session = Session(model=None, tools=tool_list, cwd=cwd, seams=Seams(before_tool=policy))  # type: ignore[arg-type]  # no model turn here
    batch = [ToolCall(id=f"call_{next(_ids)}", name=name, arguments=args) for name, args in calls]
    return await run_tool_batch(session, batch, AbortSignal())
