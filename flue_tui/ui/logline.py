"""How a `log` event reads on screen, the same in the app, inline mode, `--plain` and `-p --verbose`.

Flue's message and attributes stay as they are on the event stream; this only words them for a person,
so a retry says which attempt it is, what failed and how long flue waits.
"""

from __future__ import annotations

from flue_tui.core.events import Log

RETRY = "[flue:model-retry] Retrying transient model error"


def log_line(event: Log) -> str:
    attrs = event.attributes or {}
    error = attrs.get("error")
    if event.message == RETRY and isinstance(attrs.get("attempt"), int):
        what = [f"attempt {attrs['attempt']} of {attrs.get('maxRetries', 3)}"]
        status, kind = attrs.get("status"), attrs.get("kind")
        if isinstance(status, int):
            what.append(f"status {status}")
        if isinstance(kind, str) and kind != "other":
            what.append(kind.replace("_", " "))
        delay = attrs.get("delayMs")
        if isinstance(delay, int | float):
            what.append(f"waiting {delay / 1000:.1f} s")
        return f"{event.message} ({', '.join(what)}){f': {error}' if error else ''}"
    return f"{event.message}{f': {error}' if error else ''}"
