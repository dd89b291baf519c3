"""The user's UserPromptSubmit and Stop hooks at a root session's prompt, SubagentStop at a task
child's, PreCompact at either's compaction (flue_tui/hooks implements them; the runtime sets
`Session.prompt_hooks`). A Protocol, so agent/ knows no hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from flue_tui.agent.compaction import CompactHooks
from flue_tui.agent.loop import LoopHost, Stats, run_loop
from flue_tui.core.abort import AbortSignal

# How many times Stop hooks may send one prompt's turn on: a hook that always blocks ends here.
MAX_STOP_ROUNDS = 8


class PromptHooks(CompactHooks, Protocol):
    async def user_prompt(self, prompt: str) -> tuple[str | None, str | None]: ...
    async def stop(self, active: bool) -> str | None: ...


async def stop_rounds(
    hooks: PromptHooks, session: LoopHost, remind: Callable[[str | None], None], signal: AbortSignal, stats: Stats
) -> None:
    """Stop hooks that answer `decision: "block"` send the turn on with their reason. It is sent as
    the next user message but not kept (`remind`, as the structured-output reminder): the history,
    and the prompts a rewind numbers, hold only what the user typed."""
    for rounds in range(MAX_STOP_ROUNDS):
        reason = await hooks.stop(rounds > 0)  # Claude Code's stop_hook_active
        if reason is None or signal.aborted:
            return
        remind(reason)
        try:
            await run_loop(session, signal, stats)
        finally:
            remind(None)
