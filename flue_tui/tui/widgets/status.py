"""The status line: model · session · cwd · mode on the left; tokens, cost, context and activity on
the right. When the terminal is narrow the least important parts go first (ui/statusline.py): the
token counts, the session name, the cost; the permission mode, the directory and what the agent is
doing stay."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.containers import Horizontal
from textual.widgets import Static

from flue_tui.agent import usage_text
from flue_tui.ui.router import Status
from flue_tui.ui.statusline import Part, fit
from flue_tui.ui.toolfmt import SPINNER
from flue_tui.ui.welcome import home_short

GAP = 2  # #status-right's left padding (app.tcss); `size` is already inside #status's own padding


def tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def short_cwd(cwd: str, limit: int = 40) -> str:
    return home_short(cwd, limit)


def _text(parts: list[Part]) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    for i, part in enumerate(parts):
        if i:
            text.append(part.sep, style="dim")
        text.append(part.text, style=part.style)
    return text


class StatusBar(Horizontal):
    def __init__(self) -> None:
        super().__init__(id="status")
        self.left = Static("", id="status-left")
        self.right = Static("", id="status-right")
        self.frame = 0
        self._shown: dict[str, Any] | None = None
        self._texts: dict[str | None, Text] = {}  # what each part shows

    def compose(self):
        yield self.left
        yield self.right

    def on_resize(self, event: events.Resize) -> None:
        if self._shown is not None:
            self.show(**self._shown)

    def show(
        self, *, model: str, name: str, cwd: str, status: Status, context_window: int | None, busy: bool, mode: str = ""
    ) -> None:
        self._shown = dict(
            model=model, name=name, cwd=cwd, status=status, context_window=context_window, busy=busy, mode=mode
        )
        left = [
            Part(model or "no model", 4, "bold", side="L"),
            Part(name, 1, side="L"),
            Part(short_cwd(cwd, 60), 6, "dim", shrink_to=16, side="L"),  # cut from the left before parts go
            Part(mode, 8, "bold yellow" if mode == "yolo" else "cyan", side="L"),  # Shift+Tab cycles it
        ]
        right = [Part(f"↑{tokens(status.input_tokens)} ↓{tokens(status.output_tokens)}", 0, "dim")]
        if not status.total.priced or status.cost:  # worded as every surface words it: unknown, never $0
            right.append(Part(usage_text.cost(status.total, 3), 2, "dim"))
        if context_window and status.context_tokens:
            pct = 100 * status.context_tokens / context_window
            right.append(Part(f"ctx {pct:.0f}%", 3, "yellow" if pct >= 80 else "dim"))
        if status.background:  # /bashes lists, tails and stops them
            right.append(Part(f"{status.background} bg", 7, "yellow"))
        if busy:
            right.append(Part(f"{SPINNER[self.frame % len(SPINNER)]} {status.activity}", 9, "bold cyan", "  "))
        else:
            right.append(Part(status.activity if status.activity != "idle" else "ready", 9, "dim", "  "))
        kept = fit(left + right, self.size.width - GAP if self.size.width else 0)
        self._put(self.left, _text([p for p in kept if p.side == "L"]))
        self._put(self.right, _text([p for p in kept if p.side != "L"]))

    def _put(self, part: Static, text: Text) -> None:
        """Show `text`, laying the screen out again only when the part's width may change: the bar
        is shown on every flush and every spinner tick, and a layout re-arranges every widget on
        screen (the conversation's blocks included), not only the bar. The bar is one line high and
        the left part takes what the right leaves (1fr), so only the right part's width (auto)
        follows its text."""
        shown = self._texts.get(part.id)
        if shown is not None and shown == text:
            return
        self._texts[part.id] = text
        part.update(text, layout=part is self.right and (shown is None or shown.cell_len != text.cell_len))
