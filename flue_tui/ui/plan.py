"""The model's plan (todo_write) as a checklist: the app's panel and inline mode's print share it.

Each line is a mark and the item: ☐ pending, ▶ in progress (bold), ☑ completed (dim, struck). A
long plan shows the items around the one in progress and says how many are left out, so the panel
never takes the screen. Item text is the model's: it goes through terminal_safe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from flue_tui.ui.termsafe import terminal_safe

if TYPE_CHECKING:  # the app imports this before its first frame, a plan comes later
    from flue_tui.core.details import PlanDetails

MARKS = {"pending": ("☐", ""), "in_progress": ("▶", "bold"), "completed": ("☑", "dim strike")}


def progress(plan: PlanDetails) -> str:
    done = sum(t.status == "completed" for t in plan.todos)
    return f"{done}/{len(plan.todos)} done"


def _window(plan: PlanDetails, rows: int) -> tuple[int, int]:
    """The slice of items to show in `rows` lines: from a little before the first unfinished one."""
    n = len(plan.todos)
    if n <= rows:
        return 0, n
    first = next((i for i, t in enumerate(plan.todos) if t.status != "completed"), n - 1)
    start = max(0, min(first - 1, n - rows))
    return start, start + rows


def plan_text(plan: PlanDetails, rows: int | None = None, indent: str = "") -> Text:
    """The checklist, at most `rows` item lines (None: all), each prefixed by `indent`."""
    start, end = _window(plan, rows) if rows is not None else (0, len(plan.todos))
    lines: list[Text] = []
    if start:
        lines.append(Text(f"{indent}  … {start} done above", style="dim"))
    for todo in plan.todos[start:end]:
        mark, style = MARKS.get(todo.status, ("?", ""))
        line = Text(indent)
        line.append(mark + " ", style="cyan" if todo.status == "in_progress" else "dim")
        line.append(terminal_safe(todo.content), style=style)
        lines.append(line)
    if end < len(plan.todos):
        lines.append(Text(f"{indent}  … {len(plan.todos) - end} more", style="dim"))
    return Text("\n").join(lines)
