"""`flue --inline`: the agent rendered straight into the terminal's scrollback (rich + prompt-toolkit).

app.py the loop; sessions.py which session; renderer.py, blocks.py output; prompt.py the input line;
commands.py slash commands; asking.py questions; modelpick.py the `/model` picker; terminal.py the
console; safe.py terminal-safe rich output; greeting.py the welcome, the no-key refusal, the fitted
toolbar and the turn-end notification. Never imports flue_tui.tui.

No Textual here. Imported lazily by the CLI, so `flue --help` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings


def run_inline(settings: Settings, first: str | None, *, sessions: Any = None) -> int:
    from flue_tui.inline.app import run_inline as run

    return run(settings, first, sessions=sessions)
