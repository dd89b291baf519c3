"""The app's turn-end notification (ui/notify.py says what and why): when a prompt's work ends and
the terminal does not have focus (Textual's `app_focus`, from the terminal's focus reports), OSC 9
and BEL go to the terminal, unless `notify = false`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flue_tui.ui.notify import notification, turn_message

if TYPE_CHECKING:
    from flue_tui.core.events import Event


def terminal_writer(app: Any) -> Callable[[str], None]:
    def write(data: str) -> None:
        driver = getattr(app, "_driver", None)
        if driver is not None and not app.is_headless:
            driver.write(data)  # Textual's own output channel, as App.bell() uses

    return write


def watch(app: Any, session: Any, write: Callable[[str], None] | None = None) -> Callable[[], None]:
    """Notify at the end of each of `session`'s prompts (not its task children's); returns the
    unsubscribe. The bytes go to `write`, else the app's `notify_write` if it has one, else the terminal."""
    # Imported once a session exists: creating the event classes would delay the first frame.
    from flue_tui.core.events import Operation

    def on_event(event: Event) -> None:
        if not isinstance(event, Operation) or event.task_id is not None or event.parent_session is not None:
            return
        if event.session != session.id or not app.settings.notify or app.app_focus:
            return
        label = app.session_label() if hasattr(app, "session_label") else ""
        text = turn_message(label, duration_ms=event.duration_ms, is_error=event.is_error)
        out = write or getattr(app, "notify_write", None) or terminal_writer(app)
        out(notification(text))

    return session.subscribe(on_event)
