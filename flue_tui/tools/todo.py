"""`todo_write`: the model's live plan, in the shape of Claude Code's TodoWrite.

Each call replaces the whole list. It is advice the model keeps for itself and the user sees (the
app's checklist, inline mode's print, ACP's `plan` updates), never a gate: nothing waits on it. The
arguments are checked strictly here (the schema validator knows neither enums nor extra keys) and
a bad list is refused with one sentence, so a UI never shows half a plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flue_tui.core.abort import ToolError
from flue_tui.core.details import TODO_STATUSES, PlanDetails, Todo
from flue_tui.core.messages import ToolResultMessage
from flue_tui.core.traits import ToolTraits
from flue_tui.tools.base import ToolContext, ToolResult

NAME = "todo_write"
MAX_TODOS = 100
MAX_CONTENT = 500  # characters of one item: a line of a checklist, not a document
DONE_TEXT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
    "progress. Please proceed with the current tasks if applicable"
)


_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["todos"],
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["content", "status"],
                "properties": {
                    "content": {"type": "string", "minLength": 1, "description": "What to do, imperative"},
                    "status": {"type": "string", "enum": list(TODO_STATUSES)},
                },
                "additionalProperties": False,
            },
            "description": "The updated todo list",
        }
    },
    "additionalProperties": False,
}


class TodoWriteTool:
    name = NAME
    label = "Plan"
    traits = ToolTraits(kind="other", subject="todos", details=PlanDetails)
    description = (
        "Create or update your plan for the current task as a checklist the user sees. Pass the whole "
        "list every time (it replaces the previous one); mark one item in_progress while you work on it "
        "and completed as soon as it is done. Use it for work of three or more steps; skip it for "
        "trivial requests."
    )
    parameters = _SCHEMA

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(DONE_TEXT, check_todos(args))


def check_todos(args: Any) -> PlanDetails:
    """The plan in `args`, or ToolError naming the first thing wrong with it."""
    if not isinstance(args, dict) or set(args) - {"todos"}:
        extra = ", ".join(sorted(set(args) - {"todos"})) if isinstance(args, dict) else ""
        raise ToolError(f"todo_write takes only a `todos` list; unexpected: {extra or type(args).__name__}.")
    todos = args.get("todos")
    if not isinstance(todos, list):
        raise ToolError("todo_write needs `todos`: a list of {content, status} objects.")
    if len(todos) > MAX_TODOS:
        raise ToolError(f"todo_write takes at most {MAX_TODOS} todos, got {len(todos)}; keep the plan short.")
    out: list[Todo] = []
    for i, item in enumerate(todos):
        where = f"todos[{i}]"
        if not isinstance(item, dict) or set(item) != {"content", "status"}:
            raise ToolError(f"{where} must be an object with exactly `content` and `status`.")
        content, status = item["content"], item["status"]
        if not isinstance(content, str) or not content.strip():
            raise ToolError(f"{where}.content must be a non-empty string.")
        if len(content) > MAX_CONTENT:
            raise ToolError(f"{where}.content is {len(content)} characters; at most {MAX_CONTENT}.")
        if status not in TODO_STATUSES:
            raise ToolError(f"{where}.status must be one of {', '.join(TODO_STATUSES)}, not {_shown(status)}.")
        out.append(Todo(" ".join(content.split()), status))  # one line per item, whatever was sent
    return PlanDetails(tuple(out))


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def latest_plan(messages: Iterable[Any]) -> PlanDetails | None:
    """The plan of the last successful todo_write among `messages` (a live or resumed history): what
    resume shows and what an ACP front end sends as its `plan` update. None when there is none."""
    plan = None
    for m in messages:
        if isinstance(m, ToolResultMessage) and m.tool_name == NAME and not m.is_error:
            plan = PlanDetails.parse(m.details) if isinstance(m.details, dict) and m.details else plan
    return plan
