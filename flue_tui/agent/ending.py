"""How a prompt was admitted and how its run ended: the values `Session.prompt`'s phases hand on
(admit → run → finish), so each phase is a method of its own and the ways a run ends are one
mapping (`Ending.ended_by`), not an `except` ladder in the middle of the prompt."""

from __future__ import annotations

from dataclasses import dataclass

from flue_tui.agent.loop import BudgetExceeded, MaxTurnsReached, OperationFailed
from flue_tui.agent.pending import PendingCheckpoint
from flue_tui.agent.result import Subtype
from flue_tui.core.abort import AbortError
from flue_tui.tools.result import Outcome


@dataclass(frozen=True, slots=True)
class Admitted:
    """What admitting a prompt decided: its checkpoint, a structured result's outcome, and why it
    does not run (`refused`: the model takes no images; `blocked`: a UserPromptSubmit hook's reason)."""

    pending: PendingCheckpoint
    outcome: Outcome | None
    refused: str | None
    blocked: str | None
    display: str | None  # what the user typed, as the prompt's scope and its message keep it


@dataclass(slots=True)
class Ending:
    """How a prompt's run ended, as the result and the Operation event report it."""

    subtype: Subtype = "success"
    error: str | None = None
    hint: str | None = None
    aborted: bool = False
    status: int | None = None
    reply_stop: str | None = None  # the last reply's stop reason, read before a compaction

    def ended_by(self, exc: BaseException, max_turns: int | None, cost: float, budget: float | None) -> None:
        if isinstance(exc, MaxTurnsReached):
            self.subtype, self.error = "error_max_turns", f"Reached the maximum number of turns ({max_turns})."
        elif isinstance(exc, BudgetExceeded):
            self.subtype = "error_max_budget_usd"
            self.error = f"Stopped: the run cost ${cost:.4f}, over the --max-budget-usd limit of ${budget}."
        elif isinstance(exc, AbortError):
            self.subtype, self.error, self.aborted = "error_during_execution", str(exc), True
        elif isinstance(exc, OperationFailed):
            self.subtype, self.error = "error_during_execution", str(exc)
            self.hint, self.status = exc.hint, exc.status
