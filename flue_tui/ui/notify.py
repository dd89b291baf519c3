"""The turn-end notification: words and bytes, for the app and inline mode.

Written to the terminal when a prompt's work ends while the user looks elsewhere: OSC 9
(`ESC ] 9 ; text BEL`, a desktop notification in iTerm2, kitty, WezTerm, Ghostty, foot…), then
BEL, which terminals without OSC 9 turn into a sound or an urgent window (tmux marks the window).
`notify = false` in config.toml (or FLUE_NOTIFY=0) turns it off.

When: the app knows whether its terminal has focus (focus reporting, CSI ?1004h, which Textual
enables) and notifies only when it has not. Inline mode reads no input while a turn runs, so it
cannot see focus reports then: it notifies when a turn took longer than NOTIFY_AFTER_S, long enough
that the user has probably looked away.

The text is flue's own plus the session's label; it passes through `terminal_safe` anyway, so no
name can end the sequence early or smuggle another one in.
"""

from __future__ import annotations

from flue_tui.ui.termsafe import terminal_safe

NOTIFY_AFTER_S = 30.0  # inline mode: turns at least this long notify
MAX_CHARS = 120  # a notification is a line, not a report


def turn_message(label: str, *, duration_ms: int, is_error: bool, aborted: bool = False) -> str:
    outcome = "interrupted" if aborted else "stopped with an error" if is_error else "done"
    seconds = duration_ms / 1000
    took = f"{seconds:.0f}s" if seconds >= 10 else f"{seconds:.1f}s"
    return f"flue · {label}: {outcome} after {took}" if label else f"flue: {outcome} after {took}"


def notification(text: str) -> str:
    """The bytes to write: OSC 9 with `text` (made safe, one line, capped), then BEL."""
    line = terminal_safe(" ".join(text.split()))  # newlines and tabs out first: one line
    if len(line) > MAX_CHARS:
        line = line[: MAX_CHARS - 1] + "…"
    return f"\x1b]9;{line}\x07\x07"
