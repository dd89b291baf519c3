"""`session/load`: the stored conversation as the updates a live run sent — the user's prompts (as
typed), the replies and their thinking, each tool call with its outcome — before the session goes on.

The history is the store's (rebuilt by start_session), an imported file's included, so it is
untrusted: only strings are shown, and a call whose tool is gone is still shown, as `other`.
"""

from __future__ import annotations

from typing import Any

from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from flue_tui.acp.updates import MAX_OUTPUT, Bridge, locations, text_content
from flue_tui.core.messages import AssistantMessage, CompactionMessage, ToolResultMessage, UserMessage


def _text(text: str) -> TextContentBlock:
    return TextContentBlock(type="text", text=text)


def replay(messages: list[Any], bridge: Bridge) -> None:
    """Queue the updates for `messages` on the bridge (sent in order by its pump)."""
    for m in messages:
        if isinstance(m, UserMessage):
            typed = m.display if m.display else m.content
            bridge.put(UserMessageChunk(session_update="user_message_chunk", content=_text(typed)))
        elif isinstance(m, AssistantMessage):
            if m.thinking:
                bridge.put(AgentThoughtChunk(session_update="agent_thought_chunk", content=_text(m.thinking)))
            if m.text:
                bridge.put(AgentMessageChunk(session_update="agent_message_chunk", content=_text(m.text)))
            for call in m.tool_calls:
                args = call.arguments if isinstance(call.arguments, dict) else {}
                info = bridge.info(call.name, args)
                bridge.put(
                    ToolCallStart(
                        session_update="tool_call",
                        tool_call_id=call.id,
                        title=info.title,
                        kind=info.kind,  # type: ignore[arg-type]
                        status="pending",
                        locations=locations(info) or None,
                        raw_input=args,
                    )
                )
        elif isinstance(m, ToolResultMessage):
            bridge.put(
                ToolCallProgress(
                    session_update="tool_call_update",
                    tool_call_id=m.tool_call_id,
                    status="failed" if m.is_error else "completed",
                    content=[text_content(m.text[-MAX_OUTPUT:])] if m.text else None,
                )
            )
            if not m.is_error:
                bridge.plan(m.tool_name, m.details)
        elif isinstance(m, CompactionMessage):
            note = f"(Earlier messages were compacted into a summary:)\n{m.summary}"
            bridge.put(AgentThoughtChunk(session_update="agent_thought_chunk", content=_text(note)))
