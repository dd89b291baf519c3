"""Per-file mutation lock for write/edit (flue-behaviour §10.3) and the tools' abort check."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from flue_tui.core.abort import AbortError, AbortSignal

T = TypeVar("T")

# Keyed by sandbox instance so two sandboxes never serialise each other.
_locks: weakref.WeakKeyDictionary[Any, dict[str, asyncio.Future[None]]] = weakref.WeakKeyDictionary()

# Flue's tools throw Error("Operation aborted") when they see an aborted signal.
TOOL_ABORT_MESSAGE = "Operation aborted"


def check_abort(signal: AbortSignal | None) -> None:
    """Flue's throwIfAborted inside tools; an AbortError so the loop still treats it as abort."""
    if signal is not None and signal.aborted:
        raise AbortError(TOOL_ABORT_MESSAGE)


def lock_key(sandbox: Any, path: str) -> str:
    try:
        return sandbox.resolve_path(path)
    except Exception:
        return path


async def with_file_lock(sandbox: Any, path: str, operation: Callable[[], Awaitable[T]]) -> T:
    """Run `operation` after every earlier mutation of the same resolved path has finished.

    The queue position is taken synchronously, before the first await, so concurrently
    started tools are served in dispatch order.
    """
    tails = _locks.setdefault(sandbox, {})
    key = lock_key(sandbox, path)
    previous = tails.get(key)
    mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    tails[key] = mine

    def release(_: object = None) -> None:
        if not mine.done():
            mine.set_result(None)
        if tails.get(key) is mine:
            del tails[key]

    try:
        if previous is not None and not previous.done():
            await asyncio.shield(previous)
    except asyncio.CancelledError:
        # Cancelled while queued: our successor must still wait for our predecessor.
        assert previous is not None
        previous.add_done_callback(release)
        raise
    try:
        return await operation()
    finally:
        release()


async def uncancellable(awaitable: Awaitable[T]) -> T:
    """Finish an in-flight write even if our task is cancelled, so the lock never frees mid-write."""
    task = asyncio.ensure_future(awaitable)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait([task])
        raise
