"""What a Session consults, as one value given at construction (runtime/wiring.py builds it).

The policy before each tool call, the hooks after it, the checkpoints around a prompt and each
call, the MCP servers before each request, a custom command's scope, the system prompt's rebuild:
each is a callable the Session calls at its moment and knows nothing else of. Frozen: a Session is
whole when built, and nothing patches it afterwards (tests/agent/test_session_whole.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flue_tui.agent.pending import AfterPrompt, BeforePrompt, DropPrompt
    from flue_tui.agent.prompthooks import PromptHooks
    from flue_tui.agent.toolrun import AfterTool, BeforeTool, WatchTool

# Entered around one prompt with its text and what the user typed (`display`): a custom command's own
# model and pre-allowed tools hold for that prompt only (runtime/claudecode.py), restored when it ends.
PromptScope = Callable[[Any, str, "str | None"], contextlib.AbstractContextManager[None]]


@dataclass(frozen=True, slots=True)
class Seams:
    before_tool: BeforeTool | None = None  # the permission policy
    after_tool: AfterTool | None = None  # PostToolUse hooks
    watch_tool: WatchTool | None = None  # the checkpoints: what each call wrote
    before_turn: Callable[[Any], Awaitable[None]] | None = None  # MCP servers started, tools current
    before_prompt: BeforePrompt | None = None  # the file checkpoint before each user message
    after_prompt: AfterPrompt | None = None  # the turn's end kept
    drop_prompt: DropPrompt | None = None  # a blocked prompt's checkpoint number given back
    prompt_hooks: PromptHooks | None = None  # UserPromptSubmit, Stop, PreCompact, ...
    prompt_scope: PromptScope | None = None  # a custom command's model and tools
    recompose: Callable[[], str] | None = None  # the system prompt rebuilt after a compaction

    def inheriting(self, parent: Seams) -> Seams:
        """A task child's: its caller's PostToolUse hooks and checkpoint watch unless given its own
        (its calls count for the root session)."""
        return replace(
            self, after_tool=self.after_tool or parent.after_tool, watch_tool=self.watch_tool or parent.watch_tool
        )
