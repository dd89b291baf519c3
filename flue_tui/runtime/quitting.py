"""Leaving an interactive front end (the app, inline mode): close the session so everything it
streamed is in the store, then say how to come back, then end the process at once.

The app itself is gone soon after the second Ctrl+C, but a plain `return` from main then waited on
CPython's teardown (freeing litellm's module graph, far longer than the app's own exit) and
asyncio.run() joined any to_thread job still waiting for litellm's import. So the loops use
runtime/workers.py's daemon executor, and the process ends with `exit_now` once the session is closed and the hint printed.
"""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING, NoReturn

from flue_tui.runtime.workers import exit_now

if TYPE_CHECKING:
    from flue_tui.runtime.handle import SessionHandle


def close_session(handle: SessionHandle) -> str | None:
    """Close the handle's session (the recorder writes any streamed draft first, see Recorder.close)
    and return the line telling how to resume it, or None when nothing was saved. A session still
    starting (/new, then quit at once) is waited for briefly and ends too."""
    handle.settle_starts()
    started = handle.started
    hint = None
    if started is not None and started.store is not None and started.recorder is not None:
        started.recorder.flush()  # a reply cut off by the quit is in the store before we look
        try:
            info = started.store.get(started.session.id)
        except Exception:  # noqa: BLE001 - a broken store must not stop the quit; the hint is a courtesy
            info = None
        if info is not None:
            hint = resume_hint(info.name, info.id, handle.options.db if handle.options is not None else None)
    handle.end("prompt_input_exit")  # the user left the prompt: Claude Code's SessionEnd reason
    return hint


def resume_hint(name: str | None, session_id: str, db: str | None) -> str:
    """`--session NAME` resolves a name in this directory; an unnamed session by its id, which is
    unique (`-c` would pick whatever session of the directory was updated last)."""
    args = ["flue", "--session", name] if name else ["flue", "--resume", session_id]
    if db:
        args += ["--db", db]
    return "Resume this session with: " + " ".join(shlex.quote(a) for a in args)


def leave(code: int, hint: str | None) -> NoReturn:
    """Print the hint on the normal terminal (after the app left the alternate screen) and end."""
    if hint:
        print(hint, file=sys.stdout, flush=True)
    exit_now(code)
