"""rich passes an ESC inside Text or Markdown straight to the terminal (it strips only BEL, BS, VT,
FF and CR), so a model's `ESC ]52;…` in its answer would reach it. Everything inline mode prints or
shows live goes through `Safe`, which runs each rendered piece of text through terminal_safe while
leaving rich's own styling and cursor control alone."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from flue_tui.ui.termsafe import terminal_safe


@dataclass(frozen=True, slots=True)
class Safe:
    inner: RenderableType

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        for segment in console.render(self.inner, options):
            if segment.control or not segment.text:
                yield segment  # rich's own cursor moves (Live redraws), not text
            else:
                yield Segment(terminal_safe(segment.text), segment.style)
