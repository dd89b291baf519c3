"""Unified diffs for the UI (details["diff"] of write and edit); never shown to the model."""

from __future__ import annotations

import difflib

from flue_tui.sandbox.base import Sandbox, StreamingReads

# difflib is superlinear on large inputs; beyond this the UI gets no diff rather than a stall.
MAX_DIFF_CHARS = 1 << 20


def unified_diff(path: str, before: str, after: str) -> str:
    """A `---/+++/@@` diff of before → after, or "" when identical or too large to diff cheaply."""
    if before == after or len(before) + len(after) > MAX_DIFF_CHARS:
        return ""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm=""
    )
    return "\n".join(lines)


def read_before(sandbox: Sandbox | None, path: str) -> str:
    """The current text of a file about to be overwritten ("" if absent or too big); blocking."""
    if not isinstance(sandbox, StreamingReads):
        return ""
    try:
        with sandbox.open_binary(path) as f:
            data = f.read(MAX_DIFF_CHARS + 1)
    except Exception:
        return ""
    return "" if len(data) > MAX_DIFF_CHARS else data.decode("utf-8", "replace")
