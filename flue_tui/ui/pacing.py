"""When a front end draws what changed: at most once per interval, and at once after a quiet spell.

The app (tui/rendering.py) coalesces a token stream into a few frames a second. Counting the
interval from the last frame, not from the change, keeps that rate and lets a change after a pause
(a reply's first token after the model has thought, a tool call starting) be drawn without waiting
a whole interval. Inline mode keeps its fixed delay: it prints finished tool lines for good as it
flushes, and an immediate flush would print parallel calls in the order they finished (a resume
prints them in the order they were called).
"""

from __future__ import annotations

MIN_WAIT_S = 0.001  # never 0: Textual's timer divides by its interval when it finds itself late


def flush_wait(last: float, pace: float, now: float) -> float:
    """How long a change made at `now` waits: until `pace` after the last flush (`last`, on the
    same clock), and at once if that is past."""
    return max(MIN_WAIT_S, last + pace - now)
