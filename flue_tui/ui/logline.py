"""How a `log` event reads on screen, the same in the app, inline mode, `--plain` and `-p --verbose`.

Flue's message and attributes stay as they are on the event stream; this only words them for a person,
so a retry says which attempt it is, what failed and how long flue waits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flue_tui.core.events import Log


def log_line(event: Log) -> str:
    # Imported when a log event comes: the app imports this module before its first frame.
    from flue_tui.core.events import Retry

    if isinstance(event, Retry):
        what = [f"attempt {event.attempt} of {event.max_retries}"]
        if event.status is not None:
            what.append(f"status {event.status}")
        if event.error_kind != "other":
            what.append(event.error_kind.replace("_", " "))
        what.append(f"waiting {event.delay_ms / 1000:.1f} s")
        return f"{event.message} ({', '.join(what)}){f': {event.error}' if event.error else ''}"
    error = (event.attributes or {}).get("error")
    return f"{event.message}{f': {error}' if error else ''}"
