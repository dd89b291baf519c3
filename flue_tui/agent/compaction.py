"""Compaction as Flue does it (flue-behaviour.md §8): summarise the old part of the context, keep
the recent part. The full history stays in `session.messages`; only what the model is sent changes."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from flue_tui.agent import compaction_prompts as prompts
from flue_tui.core.events import Compaction, CompactionStart, Event, Log, MessageEnd, Turn, TurnStart
from flue_tui.core.ids import new_id
from flue_tui.core.images import mention
from flue_tui.core.messages import (
    AssistantMessage,
    CompactionMessage,
    Message,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_to_dict,
    model_context,
)
from flue_tui.core.traits import Described, traits_of
from flue_tui.model.base import ModelClient, ModelError, TurnResponse
from flue_tui.tools.base import Tool


class CompactHooks(Protocol):
    """The user's PreCompact hooks (flue_tui/hooks/lifecycle.py), and SessionStart after it."""

    async def pre_compact(self, trigger: str, instructions: str | None) -> tuple[str | None, str | None]: ...
    async def compacted(self) -> None: ...


class CompactSeams(Protocol):
    """What compaction consults of a Session's seams (agent/seams.py): the PreCompact hooks."""

    @property
    def prompt_hooks(self) -> CompactHooks | None: ...


class CompactionHost(Protocol):
    """What compaction needs of its Session (a Protocol: session.py imports this module)."""

    messages: list[Message]

    @property
    def seams(self) -> CompactSeams: ...
    @property
    def model(self) -> ModelClient: ...
    @property
    def compaction(self) -> CompactionConfig: ...
    @property
    def system_prompt(self) -> str: ...
    def recompose_prompt(self) -> None: ...
    @property
    def tools(self) -> dict[str, Tool]: ...
    def context_window(self) -> int | None: ...
    def record_usage(self, usage: Usage, purpose: str = "agent") -> None: ...
    def event(self, cls: type[Event], **fields: Any) -> Any: ...
    def emit(self, event: Event) -> None: ...


Reason = Literal["threshold", "overflow", "manual"]
TOOL_RESULT_CHARS = 2000


class CompactionFailed(Exception):
    pass


@dataclass(slots=True)
class CompactionConfig:
    """How a session compacts its history: when on its own, what it keeps, and with which model."""

    auto: bool = True  # threshold compaction; overflow recovery and /compact work regardless
    reserve_tokens: int | None = None
    keep_recent_tokens: int | None = None
    model: ModelClient | None = None  # the summariser; the session's model when None


def derive_settings(config: CompactionConfig, window: int | None, max_output: int | None) -> tuple[int, int]:
    """(reserve, keep-recent) tokens: Flue's defaults from the model's metadata unless set."""
    reserve = min(20000, max_output if max_output and max_output > 0 else 20000)
    if window and window > 0 and reserve * 2 >= window:
        reserve = max(1024, window // 3)
    return config.reserve_tokens or reserve, config.keep_recent_tokens or 8000


# An image costs the model about 1,600 tokens (Anthropic: width×height/750, downscaled to fit).
IMAGE_CHARS = 1600 * 4


def estimate(message: Message) -> int:
    """chars/4, rounded up, as Flue estimates messages that have no measured usage."""
    if isinstance(message, UserMessage):
        chars = len(message.content) + IMAGE_CHARS * len(message.images)
    elif isinstance(message, AssistantMessage):
        chars = (
            len(message.text)
            + len(message.thinking)
            + sum(len(tc.name) + len(json.dumps(tc.arguments)) for tc in message.tool_calls)
        )
    elif isinstance(message, ToolResultMessage):
        chars = len(message.text)
    else:
        chars = len(message.summary)
    return math.ceil(chars / 4)


def usage_tokens(usage: Usage) -> int:
    return usage.input + usage.output + usage.cache_read + usage.cache_write


def usable(m: Message) -> bool:
    """Whether a message is a real turn: an assistant turn that errored or was aborted is not."""
    return not (isinstance(m, AssistantMessage) and m.stop_reason in ("error", "aborted"))


def context_tokens(context: list[Message]) -> int:
    """The last real assistant turn's measured usage plus estimates for what came after it."""
    for i in range(len(context) - 1, -1, -1):
        m = context[i]
        if isinstance(m, AssistantMessage) and usable(m) and m.usage is not None:
            return usage_tokens(m.usage) + sum(estimate(x) for x in context[i + 1 :])
    return sum(estimate(m) for m in context)


def find_cut(body: list[Message], keep_recent: int) -> int | None:
    """Index of the first kept message; never a tool result, so a call stays with its result."""
    valid = [i for i, m in enumerate(body) if isinstance(m, (UserMessage, AssistantMessage))]
    if not valid:
        return None
    total, target = 0, None
    for i in range(len(body) - 1, -1, -1):
        total += estimate(body[i])
        if total >= keep_recent:
            target = i
            break
    cut = valid[0] if target is None else next((v for v in valid if v >= target), valid[0])
    return cut if cut > 0 else None


def serialize(messages: list[Message]) -> str:
    blocks = []
    for m in messages:
        if isinstance(m, UserMessage):
            if m.content or m.images:  # the summariser reads text only: an image is named where it was
                blocks.append(f"[User]: {m.content}" + (f" {mention(m.images)}" if m.images else ""))
        elif isinstance(m, AssistantMessage):
            if m.thinking:
                blocks.append(f"[Assistant thinking]: {m.thinking}")
            if m.text:
                blocks.append(f"[Assistant]: {m.text}")
            if m.tool_calls:
                calls = "; ".join(
                    f"{tc.name}("
                    + ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in tc.arguments.items())
                    + ")"
                    for tc in m.tool_calls
                )
                blocks.append(f"[Assistant tool calls]: {calls}")
        elif isinstance(m, ToolResultMessage):
            text = m.text
            if len(text) > TOOL_RESULT_CHARS:
                text = f"{text[:TOOL_RESULT_CHARS]}\n\n[... {len(text) - TOOL_RESULT_CHARS} more characters truncated]"
            blocks.append(f"[Tool result]: {text}")
    return "\n\n".join(blocks)


def _file_ops(
    messages: list[Message], previous: CompactionMessage | None, tools: Mapping[str, Described]
) -> tuple[list[str], list[str]]:
    """The files the calls read and changed, by their tools' kinds and path arguments."""
    read, modified = set(previous.read_files if previous else []), set(previous.modified_files if previous else [])
    for m in messages:
        if isinstance(m, AssistantMessage):
            for tc in m.tool_calls:
                traits = traits_of(tools.get(tc.name))
                if traits.kind == "read":
                    read.update(traits.path_values(tc.arguments))
                elif traits.kind == "edit":
                    modified.update(traits.path_values(tc.arguments))
    return sorted(read - modified), sorted(modified)


async def _summarise(
    session: CompactionHost, model: ModelClient, user_text: str, max_tokens: int, purpose: str, usage: Usage
) -> str:
    turn_id = new_id("turn")
    session.emit(session.event(TurnStart, turn_id=turn_id, purpose=purpose))
    began = time.monotonic()
    wire = [{"role": "system", "content": prompts.SYSTEM}, {"role": "user", "content": user_text}]
    response: TurnResponse | None = None
    error: str | None = None
    try:
        async for item in model.stream_turn(wire, [], max_tokens=max_tokens):
            if isinstance(item, TurnResponse):
                response = item
    except ModelError as exc:
        error = exc.message
    session.emit(
        session.event(
            Turn,
            turn_id=turn_id,
            purpose=purpose,
            duration_ms=int((time.monotonic() - began) * 1000),
            is_error=error is not None,
            error=error,
            usage=response.usage.to_dict() if response else None,
        )
    )
    if response is None:
        label = "Summarization" if purpose == "compaction" else "Turn prefix summarization"
        raise CompactionFailed(f"{label} failed: {error}")
    usage.add(response.usage)
    return response.text.strip()


def nothing_to_compact(session: CompactionHost) -> str:
    """Why `/compact` did nothing, in the words a user reads: compaction keeps the recent part verbatim."""
    context = [m for m in model_context(session.messages) if usable(m)]
    previous = next((m for m in reversed(session.messages) if isinstance(m, CompactionMessage)), None)
    body = context[(1 + (previous.request is not None)) if previous else 0 :]
    if not body:
        return "Nothing to compact: there are no messages since the start or the last compaction."
    _, keep = derive_settings(session.compaction, session.context_window(), session.model.max_output_tokens())
    count = len(body)
    return (
        f"Nothing to compact: the conversation is too short ({count} message{'s' if count != 1 else ''}, "
        f"~{context_tokens(body)} tokens); the most recent ~{keep} tokens are always kept verbatim."
    )


async def compact(session: CompactionHost, reason: Reason, focus: str | None = None) -> CompactionMessage | None:
    """Summarise and append a CompactionMessage; None when there is nothing to compact."""
    context = [m for m in model_context(session.messages) if usable(m)]
    previous = next((m for m in reversed(session.messages) if isinstance(m, CompactionMessage)), None)
    head = (1 + (previous.request is not None)) if previous else 0
    body = context[head:]
    config = session.compaction
    reserve, keep = derive_settings(config, session.context_window(), session.model.max_output_tokens())
    cut = find_cut(body, keep)
    if cut is None:
        session.emit(session.event(Log, level="info", message="[flue:compaction] Nothing to compact"))
        return None
    hooks = session.seams.prompt_hooks
    if hooks is not None:  # Claude Code's PreCompact: its stdout joins the instructions; exit 2 blocks
        blocked, focus = await hooks.pre_compact("manual" if reason == "manual" else "auto", focus)
        if blocked is not None:
            raise CompactionFailed(f"A PreCompact hook blocked the compaction: {blocked}")
    tokens_before = context_tokens(context)
    session.emit(session.event(CompactionStart, reason=reason, estimated_tokens=tokens_before))
    began = time.monotonic()
    usage = Usage()
    split = isinstance(body[cut], AssistantMessage)
    turn_start = next((i for i in range(cut - 1, -1, -1) if isinstance(body[i], UserMessage)), 0) if split else cut
    history, prefix = body[:turn_start], body[turn_start:cut]
    note = f" (split turn: {len(prefix)} prefix messages)" if split else ""
    session.emit(
        session.event(
            Log,
            level="info",
            message=f"[flue:compaction] Summarizing {len(history) + len(prefix)} "
            f"messages{note}, keeping messages from index {head + cut}",
        )
    )
    model = config.model or session.model
    try:
        jobs = []
        if history or not split:
            text = f"<conversation>\n{serialize(history)}\n</conversation>\n\n"
            if previous is not None:
                text += f"<previous-summary>\n{previous.summary}\n</previous-summary>\n\n"
            text += (prompts.UPDATE if previous is not None else prompts.FIRST) + (
                prompts.focus_note(focus) if focus else ""
            )
            jobs.append(_summarise(session, model, text, min(int(0.8 * reserve), 16000), "compaction", usage))
        if split:
            text = f"<conversation>\n{serialize(prefix)}\n</conversation>\n\n{prompts.TURN_PREFIX}"
            jobs.append(_summarise(session, model, text, min(int(0.5 * reserve), 16000), "compaction_prefix", usage))
        results = await asyncio.gather(*jobs)
    except CompactionFailed as exc:
        session.emit(
            session.event(
                Compaction,
                messages_before=len(context),
                messages_after=len(context),
                duration_ms=int((time.monotonic() - began) * 1000),
                is_error=True,
                error=str(exc),
            )
        )
        raise
    summary = results[0] if (history or not split) else (previous.summary if previous else prompts.NO_PRIOR_HISTORY)
    if split:
        summary += prompts.SPLIT_TURN_HEADING + results[-1]
    read_files, modified_files = _file_ops(history + prefix, previous, session.tools)
    if read_files:
        summary += "\n\n<read-files>\n" + "\n".join(read_files) + "\n</read-files>"
    if modified_files:
        summary += "\n\n<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>"
    images = [i for m in history + prefix if isinstance(m, UserMessage) for i in m.images]
    if images:  # the images themselves are not in the summary: it says they were there
        summary += "\n\n<images>\n" + "\n".join(f"{i.name or i.sha256[:12]} ({i.media_type})" for i in images)
        summary += "\n</images>"
    latest_user = next((m for m in reversed(body) if isinstance(m, UserMessage)), None)
    summarised = any(m is latest_user for m in body[:cut])
    request = latest_user.content if latest_user is not None and summarised else None
    first_kept = body[cut]
    kept = len(session.messages) - next(i for i, m in enumerate(session.messages) if m is first_kept)
    marker = CompactionMessage(
        summary=summary,
        kept=kept,
        tokens_before=tokens_before,
        read_files=read_files,
        modified_files=modified_files,
        request=request,
        usage=usage,
    )
    session.messages.append(marker)
    session.emit(session.event(MessageEnd, message=message_to_dict(marker)))
    session.record_usage(usage, "compaction")
    session.recompose_prompt()  # AGENTS.md and skills are re-read, so they survive compaction
    after = len(model_context(session.messages))
    session.emit(
        session.event(
            Log,
            level="info",
            message=f"[flue:compaction] Complete — messages: {len(context)} → {after}, tokens before: {tokens_before}",
        )
    )
    session.emit(
        session.event(
            Compaction,
            messages_before=len(context),
            messages_after=after,
            duration_ms=int((time.monotonic() - began) * 1000),
            is_error=False,
            usage=usage.to_dict(),
        )
    )
    if hooks is not None:
        await hooks.compacted()
    return marker


def over_threshold(session: CompactionHost) -> tuple[int, int, int] | None:
    """(tokens, window, reserve) when the last turn's usage crossed the threshold, else None."""
    window = session.context_window()
    if not session.compaction.auto or not window:
        return None
    last = next((m for m in reversed(session.messages) if isinstance(m, AssistantMessage)), None)
    if last is None or not usable(last) or last.usage is None:
        return None
    reserve, _ = derive_settings(session.compaction, window, session.model.max_output_tokens())
    tokens = usage_tokens(last.usage)
    return (tokens, window, reserve) if tokens > window - reserve else None
