"""Claude Code's `result` message (the last line of stream-json, the one object of json), built
from an OperationResult. Field names and values follow Claude Code 2.x's SDKResultMessage."""

from __future__ import annotations

import json
import uuid
from typing import Any

from flue_tui.core.messages import AssistantMessage, Usage

# flue's stop reasons → the Anthropic API's (what Claude Code reports).
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
# Claude Code's terminal_reason for each way a flue operation ends.
_TERMINAL = {"success": "completed", "error_max_turns": "max_turns", "error_max_budget_usd": "budget_exhausted"}


def usage_object(usage: Usage) -> dict[str, Any]:
    """The Anthropic `usage` shape; the server-tool counters are honest zeros (flue has none)."""
    return {
        "input_tokens": usage.input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cache_read,
        "output_tokens": usage.output,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",  # what Claude Code reports for every served request
    }


def claude_model(model: str | None) -> str | None:
    """The model as Claude Code names it: Anthropic's ids carry no provider prefix there, so an
    SDK script comparing `model` with the id it passed sees the same string."""
    if model and model.startswith("anthropic/"):
        return model.removeprefix("anthropic/")
    return model


def claude_turns(result: Any, messages: list[Any]) -> int:
    """num_turns as Claude Code counts: one for each time the loop goes to the model, so a run that
    ends after tool results (the json-schema answer, --max-turns) or on a failed request counts
    that last round too, where flue counts only the model's answers. Checked side by side with
    Claude Code 2.1.332 (tests/headless_claude/test_side_by_side.py)."""
    if not messages:
        return result.num_turns  # nothing ran (a start-up failure)
    last = messages[-1]
    answered = isinstance(last, AssistantMessage) and last.stop_reason not in ("error", "aborted")
    # A budget stop is checked before the next round is counted (Claude Code 2.1 says 1 there).
    counted = answered or result.aborted or result.subtype == "error_max_budget_usd"
    return result.num_turns + (0 if counted else 1)


def result_text(result: Any) -> str:
    """The `result` text; with --json-schema it is the answer as compact JSON, as Claude Code writes it."""
    if result.structured_output is not None and not result.is_error:
        return json.dumps(result.structured_output, ensure_ascii=False, separators=(",", ":"))
    return result.text


def model_usage(model: str | None, usage: Usage, context_window: int | None) -> dict[str, Any]:
    """`modelUsage`: per model, camelCase, as Claude Code writes it (maxOutputTokens unknown: 0)."""
    if not model:
        return {}
    return {
        model: {
            "inputTokens": usage.input,
            "outputTokens": usage.output,
            "cacheReadInputTokens": usage.cache_read,
            "cacheCreationInputTokens": usage.cache_write,
            "webSearchRequests": 0,
            "costUSD": round(usage.cost, 10),
            "contextWindow": context_window or 0,
            "maxOutputTokens": 0,
        }
    }


def last_stop_reason(messages: list[Any]) -> str | None:
    for m in reversed(messages):
        if isinstance(m, AssistantMessage):
            return STOP_REASONS.get(m.stop_reason)
    return None


def terminal_reason(result: Any, messages: list[Any]) -> str:
    if result.aborted:
        last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
        # An abort during the model's stream leaves an aborted assistant turn; otherwise tools were running.
        return "aborted_streaming" if last is not None and last.stop_reason == "aborted" else "aborted_tools"
    return _TERMINAL.get(result.subtype, "model_error")


def result_message(
    result: Any,
    *,
    session_id: str,
    model: str | None,
    messages: list[Any] | None = None,
    permission_denials: list[dict[str, Any]] | None = None,
    context_window: int | None = None,
    permission_mode: str | None = None,
) -> dict[str, Any]:
    """Every field of Claude Code's result; `model` and `permissionMode` are ours (CI wrappers read
    them): the mode in effect at the end, in the init's words (`default`, `bypassPermissions`, …)."""
    history = messages or []
    model = claude_model(model)
    status = getattr(result, "api_error_status", None)
    out: dict[str, Any] = {
        "type": "result",
        # The provider's error answer is a "success" with is_error, as Claude Code reports it.
        "subtype": "success" if status is not None else result.subtype,
        "is_error": result.is_error,
        "duration_ms": result.duration_ms,
        "duration_api_ms": result.duration_api_ms,
        "num_turns": claude_turns(result, history),
        "result": result_text(result),
        "stop_reason": getattr(result, "stop_reason", None) or last_stop_reason(history),
        "session_id": session_id,
        # null when a model had no known price: unknown, never a made-up $0.
        "total_cost_usd": round(result.usage.cost, 10) if result.usage.priced else None,
        "usage": usage_object(result.usage),
        "modelUsage": model_usage(model, result.usage, context_window),
        # Every call the permission policy or the workspace sandbox refused, sub-agents included.
        "permission_denials": list(permission_denials or []),
        "terminal_reason": "api_error" if status is not None else terminal_reason(result, history),
        "api_error_status": status,
        "uuid": str(uuid.uuid4()),
        "model": model,
        "permissionMode": permission_mode,
        # The file checkpoint taken before this run's prompt ("<session id>/<n>"): roll back with
        # `flue sessions rewind <session id> --to <n>`. flue's own field, null when none was taken.
        "checkpoint": getattr(result, "checkpoint", None),
    }
    if result.is_error:
        # Claude Code's error subtypes carry `errors` and no `result` text; we keep `result` (the
        # message) because flue's json users read it, and list it in `errors` too.
        out["errors"] = [result.error or result.text]
    if result.structured_output is not None:
        out["structured_output"] = result.structured_output
    return out
