"""What one prompt() (or compaction) of a Session produced, and its running counts: the shape
print mode, the front ends and the SDK's result read (kept apart from session.py, which runs it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from flue_tui.core.messages import Usage

Subtype = Literal["success", "error_max_turns", "error_max_budget_usd", "error_during_execution"]


@dataclass(slots=True)
class RunStats:
    """One operation's model turns, time spent waiting on the model, and usage."""

    turns: int = 0
    api_ms: float = 0.0
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True, slots=True)
class OperationResult:
    """What one prompt() produced, in the shape print mode reports."""

    text: str
    is_error: bool
    subtype: Subtype
    num_turns: int
    duration_ms: int
    duration_api_ms: int
    usage: Usage
    error: str | None = None
    hint: str | None = None
    aborted: bool = False
    structured_output: Any = None
    # Why the last reply ended, in Claude Code's words: end_turn, max_tokens, tool_use (None: no reply).
    stop_reason: str | None = None
    # The file checkpoint taken just before this prompt ("<session id>/<n>"), None when none was.
    checkpoint: str | None = None
    # The provider's HTTP status when the run ended on its error answer (Claude Code's api_error_status).
    api_error_status: int | None = None

    @classmethod
    def failed(cls, message: str) -> OperationResult:
        """A run that failed before any model turn: an error, as Claude Code words one, nothing sent."""
        return cls(
            text=message,
            is_error=True,
            subtype="error_during_execution",
            num_turns=0,
            duration_ms=0,
            duration_api_ms=0,
            usage=Usage(),
            error=message,
        )


# Our stop reasons as Claude Code's result reports them.
RESULT_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use", "refusal": "refusal"}
LENGTH_CUT = 'The reply was cut off at the output limit (finish_reason "length"): the answer is incomplete.'
