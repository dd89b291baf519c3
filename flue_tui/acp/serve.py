"""`flue --acp` / `flue acp`: serve the Agent Client Protocol on stdin/stdout until stdin closes.

stdout carries JSON-RPC and nothing else: its fd is kept for the protocol and fd 1 becomes stderr,
so a stray print, a library's warning or a child process that inherits fd 1 lands in the log, never
inside the protocol stream. fd 0 becomes /dev/null for the same reason: a command the model runs
must not read the client's requests.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal as _signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings
    from flue_tui.runtime.start import SessionOptions


def _claim_stdio() -> tuple[int, int]:
    """(protocol input fd, protocol output fd); fd 0 and fd 1 no longer reach the client."""
    sys.stdout.flush()
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return in_fd, out_fd


class _OneLine(logging.Formatter):
    """The SDK logs a failed handler with its traceback; the log says it in one line instead."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f": {type(exc).__name__}: {exc}"
        return "flue acp: " + " ".join(text.split())


def run_acp(settings: Settings, options: SessionOptions) -> int:
    in_fd, out_fd = _claim_stdio()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    from flue_tui.runtime.workers import DaemonExecutor, exit_now

    with asyncio.Runner() as runner:
        runner.get_loop().set_default_executor(DaemonExecutor())  # a stuck tool thread never holds the exit
        code = runner.run(_serve(settings, options, in_fd, out_fd))
    exit_now(code)


async def _serve(settings: Settings, options: SessionOptions, in_fd: int, out_fd: int) -> int:
    from acp.agent.connection import AgentSideConnection

    from flue_tui.acp.agent import FlueAgent
    from flue_tui.acp.wire import stdio_transport

    transport = await stdio_transport(in_fd, out_fd)
    agent = FlueAgent(settings, options)
    # FlueAgent serves the methods flue offers; the SDK answers the others with method-not-found.
    conn = AgentSideConnection(
        agent,  # type: ignore[arg-type]
        transport,
        listening=False,
        use_unstable_protocol=True,
    )
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    caught: list[int] = []

    def on_signal(code: int) -> None:
        caught.append(code)
        stop.set()

    for signum, code in ((_signal.SIGINT, 130), (_signal.SIGTERM, 143)):
        loop.add_signal_handler(signum, on_signal, code)
    listening = asyncio.ensure_future(conn.listen())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({listening, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    await agent.shutdown(cut=bool(caught))  # running prompts stopped, recordings closed
    await transport.idle()  # the last answers are out
    listening.cancel()
    return caught[0] if caught else 0
