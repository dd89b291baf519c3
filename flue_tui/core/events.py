"""The event vocabulary: one stream that the TUI, print mode and the store all consume.

Names and payload fields follow Flue's events (flue-behaviour.md §12); `tool_output` and `usage`
are ours. Every event carries the session id and, inside a sub-task, the task id and parent session.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

from flue_tui.core.traits import OTHER, ToolOutcome, ToolTraits


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """What every event carries: the session it came from, and the task and parent of a sub-agent's."""

    type: ClassVar[str] = "event"
    # Fields for in-process subscribers only, never serialised (a tool's traits are not JSON).
    local: ClassVar[tuple[str, ...]] = ()
    session: str
    task_id: str | None = None
    parent_session: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Flue's JSON shape: `type` first, camelCase keys, absent correlation fields omitted."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if (value is None and f.name in ("task_id", "parent_session")) or f.name in self.local:
                continue
            out[_camel(f.name)] = value
        return out


OperationKind = Literal["prompt", "skill", "task", "shell", "compact"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationStart(Event):
    """An operation (a prompt, a skill, a task, a `!command`, a compaction) has started."""

    type: ClassVar[str] = "operation_start"
    operation_id: str
    operation_kind: OperationKind = "prompt"


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation(Event):
    """An operation has ended: how long it took, and its error if it failed."""

    type: ClassVar[str] = "operation"
    operation_id: str
    operation_kind: OperationKind
    duration_ms: int
    is_error: bool
    error: str | None = None
    result: str | None = None
    usage: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStart(Event):
    """A model request of an operation is about to go out."""

    type: ClassVar[str] = "turn_start"
    turn_id: str
    purpose: str = "agent"


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(Event):
    """A model request finished (successfully or not)."""

    type: ClassVar[str] = "turn"
    turn_id: str
    purpose: str
    duration_ms: int
    is_error: bool
    finish_reason: str | None = None
    error: str | None = None
    usage: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TextDelta(Event):
    """A piece of the model's reply text, as it streams."""

    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingDelta(Event):
    """A piece of the model's thinking, as it streams."""

    type: ClassVar[str] = "thinking_delta"
    delta: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageEnd(Event):
    """A completed message (user prompt, assistant turn, tool result) as its storage dict."""

    type: ClassVar[str] = "message_end"
    message: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolStart(Event):
    """A tool call begins. `traits` is the tool's self-description (core/traits.py) for the front
    ends (how its details read back); `kind` is its kind, the part that goes on the wire."""

    type: ClassVar[str] = "tool_start"
    local: ClassVar[tuple[str, ...]] = ("traits",)
    tool_name: str
    tool_call_id: str
    args: dict[str, Any] = field(default_factory=dict)
    kind: str = "other"
    traits: ToolTraits = OTHER


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutput(Event):
    """Ours: a live chunk of a running command's output, for the UI only (never sent to the model)."""

    type: ClassVar[str] = "tool_output"
    tool_call_id: str
    stream: str
    chunk: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEnd(Event):
    """Flue's terminal `tool` event; `result` is `{content: [{type, text}], details}`. `outcome` (ours)
    says how it ended, so nobody reads the text for it: ok, error, denied, aborted or cut
    (core/traits.py)."""

    type: ClassVar[str] = "tool"
    tool_name: str
    tool_call_id: str
    is_error: bool
    result: dict[str, Any]
    duration_ms: int
    outcome: ToolOutcome


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskStart(Event):
    """Emitted for the child: `session` is the child session, `parent_session` the caller."""

    type: ClassVar[str] = "task_start"
    prompt: str
    agent: str | None = None
    cwd: str | None = None
    tool_call_id: str | None = None
    model: str | None = None  # the child's model id (/cost names an unpriced one)


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskEnd(Event):
    """A sub-agent's task has ended, with its result."""

    type: ClassVar[str] = "task"
    agent: str | None
    is_error: bool
    result: str
    duration_ms: int
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageEvent(Event):
    """Ours: token and cost totals after each model turn (this turn's and the session's)."""

    type: ClassVar[str] = "usage"
    turn: dict[str, Any]
    total: dict[str, Any]
    purpose: str = "agent"  # or "compaction": the summariser's tokens count too, but not as context


@dataclass(frozen=True, slots=True, kw_only=True)
class Log(Event):
    """A line for the user (Flue's `log` event): information, a warning or an error."""

    type: ClassVar[str] = "log"
    level: Literal["info", "warn", "error"]
    message: str
    attributes: dict[str, Any] | None = None


RETRY_MESSAGE = "[flue:model-retry] Retrying transient model error"


@dataclass(frozen=True, slots=True, kw_only=True)
class Retry(Log):
    """A transient model error, retried after a back-off. On the wire it is Flue's `log` event (its
    message and attributes, unchanged); in process its fields are typed, so the surfaces that word
    it (ui/logline.py, stream-json's `api_retry`) match the type, never the message."""

    local: ClassVar[tuple[str, ...]] = ("attempt", "max_retries", "delay_ms", "error", "error_kind", "status")
    level: Literal["info", "warn", "error"] = "warn"
    message: str = RETRY_MESSAGE
    attempt: int
    max_retries: int
    delay_ms: int
    error: str
    error_kind: str = "other"
    status: int | None = None

    def __post_init__(self) -> None:
        # Flue's attributes, derived from the typed fields (the event is frozen, so set once here).
        attributes = {
            "attempt": self.attempt,
            "maxRetries": self.max_retries,
            "delayMs": self.delay_ms,
            "error": self.error,
            "kind": self.error_kind,
            "status": self.status,
        }
        object.__setattr__(self, "attributes", attributes)


@dataclass(frozen=True, slots=True, kw_only=True)
class Fallback(Log):
    """`--fallback-model` took over: the main model could not serve a turn, and the rest of the run
    uses the fallback. A `log` event on the wire (its message the sentence a person reads); `-p`
    says it on stderr whatever the format, by this type, never by the message."""

    local: ClassVar[tuple[str, ...]] = ("model", "fallback")
    level: Literal["info", "warn", "error"] = "warn"
    model: str
    fallback: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Idle(Event):
    """The session has nothing running."""

    type: ClassVar[str] = "idle"


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionStart(Event):
    """A compaction has started, and why."""

    type: ClassVar[str] = "compaction_start"
    reason: Literal["threshold", "overflow", "manual"]
    estimated_tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Compaction(Event):
    """A compaction has ended: the history's length before and after, and its error if it failed."""

    type: ClassVar[str] = "compaction"
    messages_before: int
    messages_after: int
    duration_ms: int
    is_error: bool
    error: str | None = None
    usage: dict[str, Any] | None = None
