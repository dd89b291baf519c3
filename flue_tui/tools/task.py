"""`task`: delegate to a child session with a fresh context (flue-behaviour.md §5)."""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Protocol

from flue_tui.config.errors import ConfigError
from flue_tui.context.subagents import Roster, Subagent
from flue_tui.core.abort import ABORT_MESSAGE, AbortError, ToolError
from flue_tui.core.details import TaskDetails
from flue_tui.core.events import TaskEnd, TaskStart
from flue_tui.core.traits import ToolTraits
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema

MAX_DELEGATION_DEPTH = 4


class ChildFactory(Protocol):
    def __call__(self, parent: Any, agent: Subagent, cwd: str | None, read_only: bool = False) -> Any:
        """Build the child Session (depth = parent's + 1, tagged with a new task id); `read_only`:
        held in plan mode for its whole run, whatever the parent's mode becomes."""
        ...


class Isolation(Protocol):
    """Where an `isolation: worktree` agent's task runs (runtime/worktree.TaskTrees)."""

    def needless(self, session: Any) -> bool:
        """No worktree is needed: the session's mode (plan) lets its task change nothing."""
        ...

    async def enter(self, cwd: str) -> Any: ...
    async def leave(self, tree: Any, cwd: str) -> str: ...


class TaskTool:
    name = "task"
    label = "Run Task"
    # A child's cwd is a path like any other (the workspace guard contains it); rules name the agent.
    traits = ToolTraits(kind="delegate", paths=("cwd",), subject="agent", details=TaskDetails)
    description = (
        "Delegate a focused task to a detached child agent with its own context. Use this for independent "
        "research, file exploration, or parallel work. Pass attachment IDs shown in the conversation to include "
        "those images. The task returns only its final answer to this conversation. Agents available for "
        'delegation are listed under "Available Agents" in the system prompt.'
    )
    parameters = schema(
        {
            "description": prop("string", "Short human-readable label for the delegated work"),
            "prompt": prop("string", "Focused instructions for the child agent"),
            "agent": prop(
                "string",
                "Subagent to run the task with, from the list of currently available agents. "
                "Agents that have been removed from the list are no longer usable (until "
                "re-introduced, if ever).",
                minLength=1,
            ),
            "cwd": prop(
                "string", "Working directory for the child agent. AGENTS.md and skills are discovered from here."
            ),
            "attachments": prop(
                "array",
                "Images from this conversation to include in the child agent prompt",
                items=schema({"id": prop("string", "Attachment ID shown in the current conversation")}, ["id"]),
            ),
        },
        ["prompt", "agent"],
    )

    def __init__(self, roster: Roster, make_child: ChildFactory, isolation: Isolation | None = None) -> None:
        self.roster = roster
        self.make_child = make_child
        self.isolation = isolation

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.signal.throw_if_aborted()
        parent = ctx.session
        if parent.depth >= MAX_DELEGATION_DEPTH:
            raise ToolError(f"Maximum delegation depth ({MAX_DELEGATION_DEPTH}) exceeded.")
        name = args["agent"]
        agent = self.roster.get(name)
        if agent is None:
            available = ", ".join(self.roster.names) or "(none)"
            return ToolResult(
                text=f'Subagent "{name}" is not declared. Available subagents: {available}.',
                details=TaskDetails(name, available=tuple(self.roster.names)),
            )
        for attachment in args.get("attachments") or []:
            # We carry no images, so no attachment id can be available.
            raise ToolError(f'Attachment "{attachment.get("id")}" is not available in this session.')
        if agent.isolation == "worktree" and self.isolation is not None:
            return await self._isolated(args, ctx, agent)
        return await self._run(args, ctx, agent, args.get("cwd"))

    async def _isolated(self, args: dict[str, Any], ctx: ToolContext, agent: Subagent) -> ToolResult:
        """The task in a worktree of its own; its answer says where, when the work stayed there."""
        cwd = args.get("cwd")
        if isinstance(cwd, str) and os.path.isabs(cwd):
            raise ToolError(f'Agent "{agent.name}" works in a worktree of its own: its cwd must be a relative path.')
        assert self.isolation is not None
        if self.isolation.needless(ctx.session):  # plan mode: a checkout it cannot change is only cost
            return await self._run(args, ctx, agent, cwd, read_only=True)
        try:
            tree = await self.isolation.enter(ctx.session.cwd)
        except ConfigError as exc:
            raise ToolError(f'Agent "{agent.name}" needs a worktree of its own: {exc}') from None
        where = os.path.normpath(os.path.join(tree.path, cwd)) if isinstance(cwd, str) and cwd else tree.path
        try:
            if where != tree.path and not where.startswith(tree.path + os.sep):
                raise ToolError(f'Agent "{agent.name}" works in a worktree of its own: its cwd must stay inside it.')
            result = await self._run(args, ctx, agent, where)
        finally:
            note = await self.isolation.leave(tree, ctx.session.cwd)
        return ToolResult(result.text + note, result.details)

    async def _run(
        self, args: dict[str, Any], ctx: ToolContext, agent: Subagent, cwd: str | None, read_only: bool = False
    ) -> ToolResult:
        parent = ctx.session
        child = self.make_child(parent, agent, cwd, read_only)
        child.subscribe(parent.emit)  # the child's live events reach every listener of the parent
        began = time.monotonic()
        parent.emit(
            child.event(
                TaskStart,
                prompt=args["prompt"],
                agent=agent.name,
                cwd=child.cwd,
                tool_call_id=ctx.call_id,
                model=getattr(child.model, "model", None),
            )
        )

        # The child runs as its own task: if this call is cancelled, the child still winds down
        # through its own abort path. Its end event is emitted here, before this call returns or
        # raises, so it always precedes the parent's next event (a done callback could run after
        # the parent had already moved on).
        run = asyncio.ensure_future(child.prompt(args["prompt"]))
        run.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved, asyncio stays quiet
        remove = ctx.signal.add_callback(child.abort)
        result = None
        try:
            result = await asyncio.shield(run)
        except asyncio.CancelledError:
            child.abort()
            raise
        finally:
            remove()
            parent.emit(
                child.event(
                    TaskEnd,
                    agent=agent.name,
                    is_error=result is None or result.is_error,
                    result=_answer(result),
                    duration_ms=int((time.monotonic() - began) * 1000),
                    tool_call_id=ctx.call_id,
                )
            )
        assert result is not None  # the finally above only falls through after a result
        if result.aborted:
            raise AbortError()
        if result.is_error:
            raise ToolError(_answer(result))
        return ToolResult(
            text=_answer(result),
            details=TaskDetails(agent.name, child.task_id, child.id, child.cwd),
        )


def _answer(result: Any) -> str:
    """The child's last assistant text, or its error; Flue's placeholder when it said nothing."""
    if result is None:
        return ABORT_MESSAGE
    if result.is_error:
        if result.stop_reason == "max_tokens" and result.text:  # keep what the child did say
            return f"{result.text}\n\n{result.error}"
        return result.error or "task failed"
    return result.text or "(task completed with no text)"
