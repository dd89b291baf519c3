"""What a permission question is and how it is answered: the request shown to the person, their
answer, and the asker that turns one into the other (the app's dialog, inline's prompt, the
terminal, the Agent SDK's can_use_tool). Both the policy and the askers build on these."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One question for the person: what would run, and what "allow for this session" would add."""

    tool_name: str
    tool_use_id: str
    args: dict[str, Any]
    kind: str
    mode: str
    title: str
    body: str
    body_kind: str  # "command" | "diff" | "json"
    session_rules: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Approval:
    """A person's answer to a permission question."""

    choice: Literal["once", "session", "deny"]
    note: str = ""  # with "deny": shown to the model so it can work around the refusal
    # With "once": the arguments to run instead (the Agent SDK's updatedInput); checked like the model's.
    updated_input: dict[str, Any] | None = None


Asker = Callable[[ApprovalRequest], Awaitable[Approval]]
