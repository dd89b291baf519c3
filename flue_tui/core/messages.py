"""Conversation messages, their storage dicts, and the provider (OpenAI chat) wire format."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from flue_tui.core.images import Image, from_dict, mention
from flue_tui.core.traits import KINDS, OUTCOMES, ToolKind, ToolOutcome, legacy_outcome
from flue_tui.core.usage import Usage  # its own module, for the app's first frame (see there)

ATTACH_NOTE = "  ⎿ "  # starts each note under a prompt's display (ui/attach.py), one per `@path`

StopReason = Literal["stop", "tool_calls", "length", "refusal", "error", "aborted"]


@dataclass(slots=True)
class ToolCall:
    """A tool call the model made: its id, name and parsed arguments."""

    id: str
    name: str
    arguments: dict[str, Any]
    # The argument text exactly as streamed, so the history replays what the model sent.
    raw_arguments: str = ""
    # Why the arguments could not be used at all (e.g. nested too deeply): the call's tool error.
    refusal: str | None = None


@dataclass(slots=True)
class UserMessage:
    """A user's message: what the model reads, and what the user typed when that differs."""

    content: str
    # What the user typed when `content` is its expansion (a skill run's `/review x`, a prompt with
    # `@path` attachments): the transcript and the title show this; the model only ever sees `content`.
    display: str | None = None
    role: Literal["user"] = "user"
    # A `!command` the user ran (agent/usershell.py): {command, exitCode, durationMs}, so a resumed
    # session draws it as the bash block it was; `content` is what the model reads. Absent otherwise.
    shell: dict[str, Any] | None = None
    # Images attached to the prompt (core/images.py), sent after the text as image parts.
    images: tuple[Image, ...] = ()

    @property
    def typed(self) -> str:
        """The prompt as typed, without the attachment notes a display has under it: what names
        a session (`/review x`, `fix @a.py`), never the skill's prompt or the attached file."""
        if self.display:
            return self.display.split("\n" + ATTACH_NOTE, 1)[0]
        return self.content


@dataclass(slots=True)
class AssistantMessage:
    """A model reply: its text, thinking and tool calls, with why it stopped and what it used."""

    text: str = ""
    thinking: str = ""
    # Anthropic-style blocks ({type: thinking, thinking, signature} or {type: redacted_thinking,
    # data}): stored and sent back exactly, as the provider checks their signatures.
    thinking_blocks: list[dict[str, str]] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: StopReason = "stop"
    error: str | None = None
    model: str = ""
    usage: Usage | None = None
    role: Literal["assistant"] = "assistant"


@dataclass(slots=True)
class ToolResultMessage:
    """A tool call's result as the model reads it, with how it ended and its details."""

    tool_call_id: str
    tool_name: str
    text: str
    is_error: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    terminate: bool = False  # finish/give_up: the loop ends when every result of a batch terminates
    duration_ms: int | None = None  # how long the tool ran (the wait for an approval excluded): shown on resume
    # How it ended and what the tool was (core/traits.py), so a resume shows both without the tool
    # or its text. None only in a hand-built message; rows stored before derive the outcome on load.
    outcome: ToolOutcome | None = None
    kind: ToolKind | None = None
    role: Literal["toolResult"] = "toolResult"


@dataclass(slots=True)
class CompactionMessage:
    """Marks a compaction in the full history. The model then sees the summary, the `kept` messages
    just before this marker, and everything after it; the store and the UI still hold everything."""

    summary: str
    kept: int
    tokens_before: int = 0
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    # Beyond Flue: the latest user request, repeated verbatim when the cut summarised it away.
    request: str | None = None
    usage: Usage | None = None  # the summariser's tokens and cost, so stored totals include them
    role: Literal["compaction"] = "compaction"


Message = UserMessage | AssistantMessage | ToolResultMessage | CompactionMessage


_UNSET_OMITTED = (
    "display",
    "duration_ms",
    "shell",
    "outcome",
    "kind",
)  # absent when None: older rows and exports look the same


def message_to_dict(message: Message) -> dict[str, Any]:
    data = asdict(message)
    for key in _UNSET_OMITTED:
        if key in data and data[key] is None:
            del data[key]
    if isinstance(message, UserMessage):
        if message.images:
            data["images"] = [i.to_dict() for i in message.images]
        else:
            del data["images"]  # absent when none: older rows and exports look the same
    return data


_THINKING_FIELDS = {"thinking": ("thinking", "signature"), "redacted_thinking": ("data",)}


def thinking_blocks_from(raw: Any) -> list[dict[str, str]]:
    """Stored thinking blocks as the provider may get them back: only the two block types, only
    their own string fields (an imported session file is untrusted, and these go to the API)."""
    out = []
    for block in raw if isinstance(raw, list) else []:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in _THINKING_FIELDS:
            out.append({"type": kind, **{k: str(block.get(k) or "") for k in _THINKING_FIELDS[kind]}})
    return out


def message_from_dict(data: dict[str, Any]) -> Message:
    role = data.get("role")
    if role == "user":
        shell, display = data.get("shell"), data.get("display")
        return UserMessage(
            content=data["content"],
            display=display if isinstance(display, str) else None,
            shell=dict(shell) if isinstance(shell, dict) else None,
            images=tuple(i for raw in data.get("images") or [] if (i := from_dict(raw)) is not None),
        )
    if role == "assistant":
        usage = data.get("usage")
        return AssistantMessage(
            text=data.get("text", ""),
            thinking=data.get("thinking", ""),
            thinking_blocks=thinking_blocks_from(data.get("thinking_blocks")),
            tool_calls=[ToolCall(**tc) for tc in data.get("tool_calls", [])],
            stop_reason=data.get("stop_reason", "stop"),
            error=data.get("error"),
            model=data.get("model", ""),
            usage=Usage(**usage) if usage else None,
        )
    if role == "toolResult":
        return ToolResultMessage(
            tool_call_id=data["tool_call_id"],
            tool_name=data["tool_name"],
            text=data["text"],
            is_error=data.get("is_error", False),
            details=data.get("details") or {},
            terminate=data.get("terminate", False),
            duration_ms=_count(data.get("duration_ms")),
            outcome=result_outcome(data),
            kind=kind if (kind := data.get("kind")) in KINDS else None,
        )
    if role == "compaction":
        return CompactionMessage(
            summary=data["summary"],
            kept=data["kept"],
            tokens_before=data.get("tokens_before", 0),
            read_files=list(data.get("read_files") or []),
            modified_files=list(data.get("modified_files") or []),
            request=data.get("request"),
            usage=Usage(**data["usage"]) if data.get("usage") else None,
        )
    raise ValueError(f"unknown message role: {role!r}")


def result_outcome(data: dict[str, Any]) -> ToolOutcome:
    """A stored tool result's outcome; a row from before outcomes (or an imported one naming none
    we know) gets it derived from what it said then."""
    stored = data.get("outcome")
    if stored in OUTCOMES:
        return stored
    details = data.get("details")
    return legacy_outcome(
        bool(data.get("is_error")), str(data.get("text") or ""), details if isinstance(details, dict) else None
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def summary_message(marker: CompactionMessage) -> UserMessage:
    """How Flue hands a summary to the model: a user message with a tagged, escaped body."""
    return UserMessage(content=f'<compaction type="context_summary">\n{_xml_escape(marker.summary)}\n</compaction>')


def model_context(messages: list[Message]) -> list[Message]:
    """What the model is sent: after the latest compaction, its summary plus kept and later messages."""
    last = next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], CompactionMessage)), None)
    if last is None:
        return list(messages)
    marker = messages[last]
    assert isinstance(marker, CompactionMessage)
    kept = [m for m in messages[max(0, last - marker.kept) : last] if not isinstance(m, CompactionMessage)]
    head: list[Message] = [summary_message(marker)]
    if marker.request is not None:
        head.append(UserMessage(content=marker.request))
    return head + kept + list(messages[last + 1 :])


def wire_arguments(call: ToolCall) -> str:
    """The arguments as streamed when they are a JSON object, else `{}`. A reply cut by the output
    limit (or a model's broken JSON) leaves text no provider accepts back (litellm refuses it
    before sending, on every later request); the call's result already tells the model what went
    wrong, and the store keeps what really arrived."""
    raw = call.raw_arguments
    if raw:
        try:
            if isinstance(json.loads(raw), dict):
                return raw
        except ValueError:
            pass
        return "{}" if not call.arguments else json.dumps(call.arguments)
    return json.dumps(call.arguments)


def user_content(message: UserMessage, images: bool = True) -> str | list[dict[str, Any]]:
    """A user message's OpenAI chat content: the text, then one `image_url` part (a data URL) per
    image; litellm and the direct path translate that for each provider. An image whose bytes are
    gone, or any image for a model without vision (`images` False), is named in the text instead."""
    if not message.images:
        return message.content
    sent = [i for i in message.images if i.data is not None] if images else []
    gone = [i for i in message.images if i not in sent]
    why = "no longer stored" if images else "not sent: this model does not take images"
    text = f"{message.content}\n\n{mention(gone)} ({why})" if gone else message.content
    if not sent:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    return parts + [{"type": "image_url", "image_url": {"url": i.data_url()}} for i in sent]


def to_wire(system_prompt: str, messages: list[Message], *, images: bool = True) -> list[dict[str, Any]]:
    """OpenAI chat messages for litellm. Errored/aborted assistant turns are left out, as Flue does.
    `images` False: the model has no vision, earlier images are named, not sent."""
    wire: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    dropped: set[str] = set()
    for m in model_context(messages):
        if isinstance(m, UserMessage):
            wire.append({"role": "user", "content": user_content(m, images)})
        elif isinstance(m, AssistantMessage):
            if m.stop_reason in ("error", "aborted"):
                dropped.update(tc.id for tc in m.tool_calls)
                continue
            out: dict[str, Any] = {"role": "assistant", "content": m.text if m.text or not m.tool_calls else None}
            if m.thinking_blocks:
                out["thinking_blocks"] = [dict(b) for b in m.thinking_blocks]
            if m.tool_calls:
                out["tool_calls"] = [
                    {
                        "id": tc.id,
                        "type": "function",
                        "function": {"name": tc.name, "arguments": wire_arguments(tc)},
                    }
                    for tc in m.tool_calls
                ]
            wire.append(out)
        elif isinstance(m, ToolResultMessage) and m.tool_call_id not in dropped:
            wire.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text})
    return wire
