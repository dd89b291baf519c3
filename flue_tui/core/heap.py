"""The collector and the objects start-up leaves: modules, classes, Textual's and litellm's tables.

They live as long as the process, yet every full (generation 2) collection walks them all: with
litellm imported that is ~400k objects, ~0.3 s of CPU each time, and a 20k-token reply in the app
triggers a few. `gc.freeze()` moves everything alive now to the permanent generation, which the
collector no longer scans; what is made afterwards is collected as before. Called once a phase
of start-up is over (the app's first frame, litellm's import): what was garbage at that moment
stays allocated, a one-off of a few kilobytes.
"""

from __future__ import annotations

import gc


def freeze_startup() -> None:
    gc.freeze()
