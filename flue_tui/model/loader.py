"""The only module that imports litellm: lazily, after setting its environment, warmable in a thread."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from flue_tui.core.heap import freeze_startup

# Set before litellm is imported. PRODUCTION stops `import litellm` from loading the cwd's .env into
# our environment (and so into every command the agent runs); the other two keep import offline.
_LITELLM_ENV = {
    "LITELLM_MODE": "PRODUCTION",
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
}

_lock = threading.Lock()
_litellm: Any = None


def get_litellm() -> Any:
    """Import litellm once (thread-safe); call from a worker thread to warm it in the background."""
    global _litellm
    if _litellm is None:
        with _lock:
            if _litellm is None:
                for key, value in _LITELLM_ENV.items():
                    os.environ[key] = value
                import litellm

                litellm.suppress_debug_info = True  # no "Provider List" / "Give Feedback" prints
                litellm.drop_params = True
                litellm.set_verbose = False  # pyright: ignore[reportPrivateImportUsage]
                # litellm counts every request's prompt with tiktoken (loading it on the first call,
                # then the whole conversation each turn) for a cost estimate flue never
                # reads: flue prices turns from the provider's usage (pricing.py). Its only other
                # use here is splitting Anthropic's reasoning tokens out, which flue does not show.
                litellm.disable_token_counter = True
                freeze_startup()  # its objects stay for the process: no full collection walks them
                _litellm = litellm
    return _litellm


async def aget_litellm() -> Any:
    """Await the import without blocking the event loop. A daemon thread, not the default executor:
    asyncio.run() joins executor threads at exit, which would hold a SIGTERM'd run for seconds."""
    if _litellm is not None:
        return _litellm
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def hand_over(callback: Any) -> None:
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the loop closed meanwhile (a signalled run): no one awaits the import
            pass

    def work() -> None:
        try:
            result: Any = get_litellm()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            # Bound as a default: Python unbinds `exc` when the except block ends, before the
            # callback runs on the loop, and a failed import would then hang the caller.
            hand_over(lambda error=exc: future.done() or future.set_exception(error))
            return
        hand_over(lambda: future.done() or future.set_result(result))

    threading.Thread(target=work, name="litellm-import", daemon=True).start()
    return await future


def warm_in_background() -> None:
    """Start importing litellm now so the first request does not wait for it."""
    threading.Thread(target=get_litellm, name="litellm-warm", daemon=True).start()


def is_loaded() -> bool:
    """Whether the (background) import has finished: the app's status says "loading" until then."""
    return _litellm is not None
