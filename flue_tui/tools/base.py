"""The tool type: a model-facing definition plus an async execute that returns text and UI details."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from flue_tui.core.abort import AbortSignal, OutputCallback
from flue_tui.core.details import ToolDetails
from flue_tui.core.traits import ToolKind as ToolKind  # re-exported: tools name their kind from here
from flue_tui.core.traits import ToolTraits

# Flue's limits (flue-behaviour.md §2). "Bytes" are UTF-16 code units, as in JavaScript.
MAX_READ_LINES = 2000
MAX_READ_BYTES = 50 * 1024
MAX_GREP_MATCHES = 100
MAX_GREP_LINE_LENGTH = 500
MAX_GLOB_RESULTS = 1000


@dataclass(frozen=True, slots=True)
class ToolResult:
    """`text` is what the model sees, verbatim; `details` is for the UI only and never sent: the
    built-in tools' typed value (core/details.py), a plain dict for the others."""

    text: str
    details: ToolDetails | dict[str, Any] = field(default_factory=dict)
    is_error: bool = False
    terminate: bool = False


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use: its call id, the abort signal, and a live-output sink."""

    call_id: str
    signal: AbortSignal
    on_output: OutputCallback = lambda stream, chunk: None
    # The running session, for tools that need it (task); typed loosely to avoid a cycle.
    session: Any = None


class Tool(Protocol):
    """A tool: its model-facing name, description and schema, and beside them its traits (what it
    is, which arguments are paths, what rules match; core/traits.py), which every other part reads."""

    name: str
    label: str
    description: str
    parameters: dict[str, Any]

    @property
    def traits(self) -> ToolTraits: ...

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


def schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    """A TypeBox-shaped object schema: key order type, required, properties (as Flue serialises)."""
    return {"type": "object", "required": list(required), "properties": properties}


def prop(type_: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": type_, **extra, "description": description}


def tool_spec(tool: Tool) -> dict[str, Any]:
    """The OpenAI-style function spec sent to the model."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }
