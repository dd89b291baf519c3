"""`finish` and `give_up`: structured results for headless runs (flue-behaviour.md §9).

Names, parameters and result/error strings are Flue's; the descriptions and prompt texts are ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flue_tui.core.abort import ToolError
from flue_tui.core.traits import ToolTraits
from flue_tui.tools.base import ToolContext, ToolResult

FOOTER = (
    "\n"
    "When you are done, call the `finish` tool and pass your final answer as its arguments. They are checked "
    "against the required schema; if the check fails you get an error and can call it again.\n"
    "If you find that you cannot finish the task, or cannot produce an answer that fits the schema, call the "
    "`give_up` tool with a clear `reason`.\n"
    "An answer written as plain text does not count: only a successful `finish` (or a `give_up`) ends the task."
)

REMINDER = (
    "Your turn ended without a call to `finish` or `give_up`. Call `finish` with your final answer now, "
    "or `give_up` with a reason if you cannot produce one."
)

MAX_FOLLOW_UPS = 32
DONE_TEXT = "A result was already submitted; the task is complete. Do not call this tool again."
GAVE_UP_TEXT = "The task was already given up; it cannot be resumed. Do not call this tool again."


@dataclass(slots=True)
class Outcome:
    """Shared by both tools: the first successful call wins."""

    kind: str | None = None  # "finish" | "give_up"
    data: Any = None
    reason: str | None = None

    def already(self) -> ToolResult | None:
        if self.kind is None:
            return None
        text = DONE_TEXT if self.kind == "finish" else GAVE_UP_TEXT
        return ToolResult(text=text, details={"alreadyDone": True}, terminate=True)


def _issue_path(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class FinishTool:
    name = "finish"
    label = "finish"
    traits = ToolTraits(read_only=True)
    description = (
        "Call this when the task is done, passing your final answer as the arguments. The arguments are "
        "checked against the required schema; if the check fails you get an error and may call it "
        "again. The first successful `finish` call is final, so do not call `finish` again after it."
    )

    def __init__(self, result_schema: dict[str, Any], outcome: Outcome) -> None:
        from jsonschema import validators

        self.enveloped = result_schema.get("type") != "object"
        self.parameters = (
            {
                "type": "object",
                "properties": {"result": result_schema},
                "required": ["result"],
                "additionalProperties": False,
            }
            if self.enveloped
            else result_schema
        )
        self._validator = validators.validator_for(self.parameters)(self.parameters)
        self.outcome = outcome

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        done = self.outcome.already()
        if done is not None:
            return done
        issues = []
        for error in sorted(self._validator.iter_errors(args), key=lambda e: list(e.absolute_path)):
            where = _issue_path(error.absolute_path)
            issues.append(f"{error.message} (at {where})" if where else error.message)
        if issues:
            raise ToolError(
                f"Result does not match the required schema: {'; '.join(issues)}. "
                "Please call `finish` again with a corrected payload."
            )
        data = args["result"] if self.enveloped else args
        self.outcome.kind, self.outcome.data = "finish", data
        return ToolResult(
            text="Result accepted. The task is complete.", details={"tool": "finish", "result": data}, terminate=True
        )


class GiveUpTool:
    name = "give_up"
    label = "give_up"
    traits = ToolTraits(read_only=True)
    description = (
        "Call this only when you are sure you cannot finish the task or cannot produce an answer that "
        "fits the required schema. Give a clear `reason`. This ends the task as a failure."
    )
    parameters = {  # noqa: RUF012 - read-only, as Tool declares it
        "type": "object",
        "properties": {
            "reason": {
                "type": "string",
                "minLength": 1,
                "description": "A clear explanation of why the task cannot be completed.",
            }
        },
        "required": ["reason"],
        "additionalProperties": False,
    }

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        done = self.outcome.already()
        if done is not None:
            return done
        reason = args.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise ToolError("`give_up` requires a non-empty `reason` string.")
        self.outcome.kind, self.outcome.reason = "give_up", reason
        return ToolResult(text="Acknowledged.", details={"tool": "give_up", "reason": reason}, terminate=True)
