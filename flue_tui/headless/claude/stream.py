"""flue's events → Claude Code's stream-json messages (`system`, `assistant`, `user`, `stream_event`).

One ClaudeStream subscribes to the root session; sub-agents' events reach it through the task tool,
and are tagged with the `parent_tool_use_id` of the task call that started them. Shapes follow what
the Claude Agent SDK's message parser reads (claude_agent_sdk/_internal/message_parser.py).
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from flue_tui.core.events import (
    CompactionStart,
    Event,
    MessageEnd,
    Retry,
    TaskStart,
    TextDelta,
    ThinkingDelta,
    Turn,
    TurnStart,
)
from flue_tui.core.messages import result_outcome
from flue_tui.headless.claude.result import STOP_REASONS, claude_model
from flue_tui.headless.claude.toolresult import tool_use_result

Write = Callable[[dict[str, Any]], None]
_RETRY_KINDS = (("rate_limit", r"rate.?limit|too many requests|429"), ("overloaded", r"overloaded|529"))


class LineWriter:
    """One JSON object per line, flushed at once; a lock because control replies and events may
    be written from different tasks."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._lock = threading.Lock()

    def __call__(self, obj: dict[str, Any]) -> None:
        line = json.dumps(obj, ensure_ascii=False) + "\n"
        with self._lock:
            self.out.write(line)
            self.out.flush()


def _uuid() -> str:
    return str(uuid.uuid4())


def init_message(
    *,
    session_id: str,
    cwd: str,
    model: str | None,
    tools: list[str],
    permission_mode: str,
    version: str,
    agents: list[str],
    skills: list[str],
    mcp_servers: list[dict[str, str]] | None = None,
    slash_commands: list[str] | None = None,
) -> dict[str, Any]:
    """Claude Code's `system`/`init`. `slash_commands` are what a user message `/name` runs (skills
    and .claude/commands). What has no meaning for flue is present and empty: no plugins, no API
    key of Anthropic's ("none")."""
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session_id,
        "tools": tools,
        "mcp_servers": list(mcp_servers or []),
        "model": claude_model(model) or "",
        "permissionMode": permission_mode,
        "slash_commands": list(slash_commands or []),
        "apiKeySource": "none",
        "claude_code_version": version,
        "flue_version": version,
        "output_style": "default",
        "agents": agents,
        "skills": skills,
        "plugins": [],
        "uuid": _uuid(),
    }


@dataclass(slots=True)
class _Partial:
    """The Anthropic stream a turn is replayed as under --include-partial-messages."""

    message_id: str
    index: int = -1
    block: str | None = None  # the open content block's type


def _usage(usage: dict[str, Any] | None) -> dict[str, Any]:
    u = usage or {}
    return {
        "input_tokens": u.get("input", 0),
        "cache_creation_input_tokens": u.get("cache_write", 0),
        "cache_read_input_tokens": u.get("cache_read", 0),
        "output_tokens": u.get("output", 0),
    }


class ClaudeStream:
    """A Session subscriber writing Claude Code's messages for the session `root`."""

    def __init__(self, write: Write, *, root: str, partial: bool, model: str = "") -> None:
        self.write, self.root, self.partial, self.model = write, root, partial, model
        self._parents: dict[str, str | None] = {}  # child session id → the task call that started it
        self._turns: dict[str, _Partial] = {}  # session id → its streaming turn
        self._compaction = "auto"
        self._args: dict[str, dict[str, Any]] = {}  # a running call's arguments, for its tool_use_result

    def __call__(self, event: Event) -> None:
        if isinstance(event, TaskStart):
            self._parents[event.session] = event.tool_call_id
        elif isinstance(event, CompactionStart):
            self._compaction = "manual" if event.reason == "manual" else "auto"
        elif isinstance(event, TurnStart) and event.purpose == "agent":
            self._turns[event.session] = _Partial("msg_" + uuid.uuid4().hex[:24])
            self._stream(
                event,
                {
                    "type": "message_start",
                    "message": {
                        "id": self._turns[event.session].message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": claude_model(self.model),
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": _usage(None),
                    },
                },
            )
        elif isinstance(event, TextDelta):
            self._delta(event, "text", {"type": "text_delta", "text": event.text})
        elif isinstance(event, ThinkingDelta):
            self._delta(event, "thinking", {"type": "thinking_delta", "thinking": event.delta})
        elif isinstance(event, Turn) and event.purpose == "agent":
            self._close_block(event)
        elif isinstance(event, MessageEnd):
            self._message(event)
        elif isinstance(event, Retry) and event.session == self.root:
            self._retry(event)

    def _retry(self, event: Retry) -> None:
        """Claude Code's `system`/`api_retry` for flue's transient-error back-off."""
        error = event.error
        kind = next((k for k, pattern in _RETRY_KINDS if re.search(pattern, error, re.IGNORECASE)), "server_error")
        self.write(
            {
                "type": "system",
                "subtype": "api_retry",
                "attempt": event.attempt,
                "max_retries": event.max_retries,
                "retry_delay_ms": event.delay_ms,
                "error_status": None,
                "error": kind,
                "session_id": self.root,
                "uuid": _uuid(),
            }
        )

    # -- whole messages --------------------------------------------------------------------------
    def _envelope(self, event: Event, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        parent = None if event.session == self.root else self._parents.get(event.session)
        return {"type": kind, **body, "parent_tool_use_id": parent, "session_id": self.root, "uuid": _uuid()}

    def _message(self, event: MessageEnd) -> None:
        m = event.message
        role = m.get("role")
        if role == "assistant":
            self._assistant(event, m)
        elif role == "toolResult":
            block = {
                "tool_use_id": m["tool_call_id"],
                "type": "tool_result",
                "content": m["text"],
                "is_error": result_outcome(m) != "ok",
            }
            args = self._args.pop(m["tool_call_id"], {})
            body = {"message": {"role": "user", "content": [block]}, "tool_use_result": tool_use_result(m, args)}
            self.write(self._envelope(event, "user", body))
        elif role == "user" and event.session != self.root:
            # A sub-agent's prompt; the root's own prompts are the caller's and are not echoed.
            content = [{"type": "text", "text": m["content"]}]
            self.write(self._envelope(event, "user", {"message": {"role": "user", "content": content}}))
        elif role == "compaction":
            self.write(
                {
                    "type": "system",
                    "subtype": "compact_boundary",
                    "session_id": self.root,
                    "uuid": _uuid(),
                    "compact_metadata": {"trigger": self._compaction, "pre_tokens": m.get("tokens_before", 0)},
                }
            )

    def _assistant(self, event: MessageEnd, m: dict[str, Any]) -> None:
        turn = self._turns.pop(event.session, None)
        message_id = turn.message_id if turn else "msg_" + uuid.uuid4().hex[:24]
        content: list[dict[str, Any]] = []
        if m.get("thinking"):
            content.append({"type": "thinking", "thinking": m["thinking"], "signature": ""})
        if m.get("text"):
            content.append({"type": "text", "text": m["text"]})
        for call in m.get("tool_calls") or []:
            content.append({"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["arguments"]})
            if isinstance(call["arguments"], dict):
                self._args[call["id"]] = call["arguments"]
        stop = STOP_REASONS.get(m.get("stop_reason", ""))
        if turn is not None and self.partial:
            for block in content:
                if block["type"] == "tool_use":
                    self._tool_use_partial(event, turn, block)
            self._stream(
                event,
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": _usage(m.get("usage")),
                },
            )
            self._stream(event, {"type": "message_stop"})
        if m.get("stop_reason") in ("error", "aborted") or not content:
            return  # a failed or cut-off turn never reaches the model again; the result reports it
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": claude_model(m.get("model", "")),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": _usage(m.get("usage")),
        }
        self.write(self._envelope(event, "assistant", {"message": message}))

    # -- partial messages ------------------------------------------------------------------------
    def _stream(self, event: Event, body: dict[str, Any]) -> None:
        if self.partial:
            self.write(self._envelope(event, "stream_event", {"event": body}))

    def _delta(self, event: Event, kind: str, delta: dict[str, Any]) -> None:
        turn = self._turns.get(event.session)
        if turn is None or not self.partial:
            return
        if turn.block != kind:
            self._close_block(event)
            turn.index += 1
            turn.block = kind
            start = (
                {"type": "text", "text": ""}
                if kind == "text"
                else {"type": "thinking", "thinking": "", "signature": ""}
            )
            self._stream(event, {"type": "content_block_start", "index": turn.index, "content_block": start})
        self._stream(event, {"type": "content_block_delta", "index": turn.index, "delta": delta})

    def _close_block(self, event: Event) -> None:
        turn = self._turns.get(event.session)
        if turn is not None and turn.block is not None:
            self._stream(event, {"type": "content_block_stop", "index": turn.index})
            turn.block = None

    def _tool_use_partial(self, event: Event, turn: _Partial, block: dict[str, Any]) -> None:
        turn.index += 1
        self._stream(
            event, {"type": "content_block_start", "index": turn.index, "content_block": {**block, "input": {}}}
        )
        self._stream(
            event,
            {
                "type": "content_block_delta",
                "index": turn.index,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
            },
        )
        self._stream(event, {"type": "content_block_stop", "index": turn.index})
