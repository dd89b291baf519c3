"""The collector and the objects start-up leaves: modules, classes, Textual's and litellm's tables.

They live as long as the process, yet every full (generation 2) collection walks them all: with
litellm imported that is ~400k objects, ~0.3 s of CPU each time, and a 20k-token reply in the app
triggers a few. `gc.freeze()` moves everything alive now to the permanent generation, which the
collector no longer scans; what is made afterwards is collected as before. Called once a phase
of start-up is over (the app's first session started, litellm imported): what was garbage then
stays allocated, a one-off of a few kilobytes.

Until the app's first session has started the collector is held off altogether
(`hold_collections`, from the `flue` entry): importing Textual and flue, composing the screen and
building the session leave objects that nearly all survive, so the ~200 collections up to then
(~40 ms here) find next to nothing (a few thousand objects of garbage, kept by the freeze), and
the freeze then moves them out of the collector's way without a scan. The hold is bounded: `freeze_startup` ends it, so does
`release_collections` (an app that ends before its frame), and a timer after HOLD_LIMIT_S (a start
that hangs).
"""

from __future__ import annotations

import gc
import threading

HOLD_LIMIT_S = 5.0

_hold: threading.Timer | None = None
_lock = threading.Lock()


def hold_collections() -> None:
    """No cyclic collection until start-up is over (see above); a no-op if the collector is off already."""
    global _hold
    with _lock:
        if _hold is not None or not gc.isenabled():
            return
        gc.disable()
        _hold = threading.Timer(HOLD_LIMIT_S, release_collections)
        _hold.daemon = True  # never keeps the process alive
        _hold.start()


def release_collections() -> None:
    """End the hold, if there is one: the collector runs again as before."""
    global _hold
    with _lock:
        if _hold is None:
            return
        _hold.cancel()
        _hold = None
        gc.enable()


# Young collections: at the default 700 allocations a 20k-token stream in the app runs ~600 of
# them (0.3-0.45 s of CPU per reply) that find next to nothing, since a chunk's dicts and strings
# die by reference counting. At 10,000, ~30 (0.14 s); the young generation stays a few MB at most.
YOUNG_THRESHOLD = 10_000


def freeze_startup() -> None:
    gc.freeze()
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:  # 0: collection switched off by someone else, left so
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    release_collections()  # after the freeze: what the hold kept from the collector is never scanned
