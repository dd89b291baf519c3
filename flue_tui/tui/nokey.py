"""Whether the app may send a prompt now. When it cannot (no key for the model, no session), it
says why at once and puts the prompt back in the input, so nothing typed is lost and it can be
sent after `/model` or once the key is set, instead of waiting on "loading" for a request that
could only fail."""

from __future__ import annotations

from typing import Any

from flue_tui.ui.keys import missing_key, refusal


def refused(app: Any, text: str) -> bool:
    if app.session is None and not app.ctl.starting:
        reason = app.ctl.unavailable or "No session."
    else:
        reason = missing_key(app.settings)
    if reason is None:
        return False
    app.notice(refusal(reason), "error")
    if not app.prompt.text.strip():
        app.prompt.set_text(text)
    return True
