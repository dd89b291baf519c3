"""Rebuild a model context from stored messages, closing what a crash left open (Flue §7.4, §11.4).

The store keeps what happened; the closures are derived here on every resume and never written,
so a later resume (or a fixed version of this function) sees the original record.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flue_tui.core.messages import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    UserMessage,
    message_from_dict,
)

INTERRUPTED_TOOL_TEXT = (
    '{"type":"interrupted","message":"Tool execution was interrupted before completion. The outcome is unknown."}'
)
STREAM_INTERRUPTED = "The previous assistant stream was interrupted."


def signal_text(signal_type: str, content: str) -> str:
    """Flue's rendering of a signal as user-message text (§7.4), content escaped as Flue does."""
    body = content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<signal type="{signal_type}">\n{body}\n</signal>'


def interrupted_result(call_id: str, name: str) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id,
        tool_name=name,
        text=INTERRUPTED_TOOL_TEXT,
        is_error=True,
        details={"interrupted": True},
        outcome="aborted",
    )


class _Builder:
    def __init__(self) -> None:
        self.out: list[Message] = []
        self.open_calls: dict[str, str] = {}  # id -> name, calls of the last assistant still unanswered

    def close_open_calls(self) -> None:
        # Results must directly follow their assistant message, so close before anything else comes.
        for call_id, name in self.open_calls.items():
            self.out.append(interrupted_result(call_id, name))
        self.open_calls.clear()

    def add(self, role: str, data: dict[str, Any], partial: bool) -> None:
        if role == "toolResult":
            self._result(data)
            return
        self.close_open_calls()
        if partial:
            self._cut_off(role, data)
            return
        message = message_from_dict(data)
        self.out.append(message)
        if isinstance(message, AssistantMessage) and message.stop_reason not in ("error", "aborted"):
            # Errored and aborted turns never reach the model (to_wire drops them and their results).
            self.open_calls = {tc.id: tc.name for tc in message.tool_calls}

    def _result(self, data: dict[str, Any]) -> None:
        call_id = data.get("tool_call_id")
        if call_id in self.open_calls:
            del self.open_calls[call_id]
            self.out.append(message_from_dict(data))
        # Otherwise there is no assistant call left to answer (its row was lost, or this is a
        # second answer): a provider would reject the message, so it stays out of the context.

    def _cut_off(self, role: str, data: dict[str, Any]) -> None:
        """An assistant message the process died while streaming: keep what was said, and tell the
        model the stream broke (Flue's stream_interrupted signal)."""
        if role != "assistant":
            return
        text, thinking = data.get("text", ""), data.get("thinking", "")
        if not text and not thinking:
            return
        self.out.append(AssistantMessage(text=text, thinking=thinking, stop_reason="stop", model=data.get("model", "")))
        self.out.append(UserMessage(content=signal_text("stream_interrupted", STREAM_INTERRUPTED)))


def rebuild_context(rows: Iterable[tuple[str, dict[str, Any], bool]]) -> list[Message]:
    """`rows` are (role, message dict, partial) in order."""
    builder = _Builder()
    for role, data, partial in rows:
        builder.add(role, data, partial)
    builder.close_open_calls()
    return builder.out
