"""The plan panel above the prompt: the model's last todo_write as a checklist, updated in place."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from flue_tui.ui.plan import plan_text, progress

if TYPE_CHECKING:
    from flue_tui.core.details import PlanDetails

ROWS = 6  # item lines at most: an 80×24 screen keeps room for the conversation


class PlanPanel(Static):
    def __init__(self) -> None:
        super().__init__("", id="plan")
        self.display = False
        self.plan: PlanDetails | None = None

    def show(self, plan: PlanDetails | None) -> None:
        """Show `plan` (None or an empty list hides the panel)."""
        self.plan = plan
        self.display = bool(plan and plan.todos)
        if plan and plan.todos:
            title = Text.assemble(("Plan", "bold"), ("  " + progress(plan), "dim"))
            self.update(Text("\n").join([title, plan_text(plan, ROWS)]))
