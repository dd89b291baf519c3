"""Print mode's Claude Code side: the options its flags gave, the init message, and the
stream-json input loop around one session (headless.py calls in here)."""

from __future__ import annotations

import asyncio
import signal as _signal
from typing import TYPE_CHECKING, Any

from flue_tui.agent.session import OperationResult, Session
from flue_tui.headless.claude.flags import ClaudeOptions
from flue_tui.headless.claude.stream import ClaudeStream, Write, init_message
from flue_tui.permissions.flags import CLAUDE_MODE

if TYPE_CHECKING:
    from flue_tui.core.images import Image
    from flue_tui.runtime.handle import SessionHandle


def claude_mode(session: Session) -> str:
    from flue_tui.permissions.policy import policy_of

    policy = policy_of(session)
    return CLAUDE_MODE.get(policy.mode if policy is not None else "yolo", "bypassPermissions")


def write_init(write: Write, session: Session, context: Any, model: str | None, opts: ClaudeOptions | None) -> None:
    from flue_tui import __version__
    from flue_tui.mcp.manager import manager
    from flue_tui.ui.commands import runnables

    # Claude Code's statuses: a server still starting is "pending" (its tools join before the first turn).
    servers = [
        {"name": s.name, "status": s.status if s.status in ("connected", "failed") else "pending"}
        for s in manager().statuses()
    ]
    write(
        init_message(
            session_id=session.id,
            cwd=session.cwd,
            model=model,
            tools=list(session.tools),
            permission_mode=claude_mode(session),
            version=__version__,
            agents=list(getattr(context.roster, "names", []) or []),
            skills=[s.name for s in context.skills.skills],
            mcp_servers=servers,
            slash_commands=[name for name, _ in runnables(context.skills)],
        )
    )


def serve_stream_input(
    handle: SessionHandle,
    opts: ClaudeOptions,
    write: Write,
    *,
    partial: bool,
    first_prompt: str | None,
    result_line: Any,
) -> tuple[list[OperationResult], int | None]:
    """Run turns from stdin until it closes on the handle's session (its limits, totals, model and
    close are the handle's, as in every front end); returns the results and the signal exit code."""
    from flue_tui.headless.claude.asks import claude_denial
    from flue_tui.headless.claude.control import Controller
    from flue_tui.headless.workers import DaemonExecutor
    from flue_tui.permissions.policy import policy_of
    from flue_tui.runtime.wiring import add_sdk_hooks
    from flue_tui.ui.slash import expand_runnable

    session = handle.session
    assert session is not None, "serve_stream_input needs a started handle"
    default_model = handle.settings.model
    stream = ClaudeStream(write, root=session.id, partial=partial, model=default_model or "")
    session.subscribe(stream)

    def set_model(name: str | None) -> None:
        """The SDK's set_model: an id, or null for the model the run started with. ValueError
        (the control request's error answer) when it cannot be used."""
        target = name or default_model
        if not target:
            raise ValueError("No model to return to: this run was started without one.")
        handle.switch_model(target)  # the one place a model client is built (effort, prices, limits)
        stream.model = target

    denied = [0]

    def end(result: OperationResult) -> None:
        policy = policy_of(session)
        # In Claude Code's tool names and input shapes, as the SDK script's can_use_tool saw them.
        denials = [claude_denial(d, session.cwd) for d in policy.denials[denied[0] :]] if policy is not None else []
        denied[0] = len(policy.denials) if policy is not None else 0
        write(result_line(result, session, handle.settings.model, denials))

    async def run(text: str, images: tuple[Image, ...] = ()) -> OperationResult:
        # `/name args` runs a skill or a .claude/commands command, as Claude Code does for the SDK.
        skills = handle.started.context.skills if handle.started is not None else None
        typed = expand_runnable(text, skills) if skills is not None else None
        if typed is not None and typed.display is not None:
            text, display = typed.prompt, typed.display
        else:
            display = None
        return await session.prompt(text, result_schema=handle.settings.json_schema, display=display, images=images)

    controller = Controller(
        session,
        write,
        begin=lambda: write_init(write, session, handle.context, handle.settings.model, opts),
        end=end,
        run=run,
        set_model=set_model,
        set_mode=handle.keep_mode,
        replay=opts.replay_user_messages,
        add_agents=handle.add_agents,
        add_hooks=lambda hooks, sdk: add_sdk_hooks(session, hooks, sdk),
    )
    from flue_tui.mcp.manager import manager

    manager().sdk_send = controller.asks.mcp_message  # the SDK's in-process MCP servers
    policy = policy_of(session)
    if opts.permission_prompt_tool == "stdio" and policy is not None:
        policy.asker = controller.ask
    caught: list[int] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()

        def on_signal(code: int) -> None:
            caught.append(code)
            if code == 143:  # SIGTERM: the store keeps the partial answer, as in `flue -p`
                handle.cut_recording()
            session.abort()
            loop.call_soon(stop.set)

        stop = asyncio.Event()
        for signum, code in ((_signal.SIGINT, 130), (_signal.SIGTERM, 143)):
            loop.add_signal_handler(signum, on_signal, code)
        serving = asyncio.ensure_future(controller.serve(first_prompt))
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not serving.done() and controller.busy and controller.settled is not None:
            # A signal mid-turn: the aborted turn still writes its result (briefly waited for).
            await asyncio.wait({asyncio.ensure_future(controller.settled.wait())}, timeout=5)
        serving.cancel()
        if not caught:
            await handle.wait_idle()

    with asyncio.Runner() as runner:
        runner.get_loop().set_default_executor(DaemonExecutor())
        runner.run(main())
    if not caught:  # stdin closed: the recorder and store are closed, as every front end does
        handle.close()
    return controller.results, (caught[0] if caught else None)
