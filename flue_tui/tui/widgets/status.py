"""The status line: model · session · cwd on the left; tokens, cost, context and activity on the right."""

from __future__ import annotations

import os

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import Static

from flue_tui.agent import usage_text
from flue_tui.ui.router import Status
from flue_tui.ui.toolfmt import SPINNER


def tokens(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def short_cwd(cwd: str, limit: int = 40) -> str:
    home = os.path.expanduser("~")
    if cwd == home or cwd.startswith(home + os.sep):
        cwd = "~" + cwd[len(home) :]
    if len(cwd) > limit:
        cwd = "…" + cwd[-(limit - 1) :]
    return cwd


class StatusBar(Horizontal):
    def __init__(self) -> None:
        super().__init__(id="status")
        self.left = Static("", id="status-left")
        self.right = Static("", id="status-right")
        self.frame = 0

    def compose(self):
        yield self.left
        yield self.right

    def show(
        self, *, model: str, name: str, cwd: str, status: Status, context_window: int | None, busy: bool, mode: str = ""
    ) -> None:
        left = Text(no_wrap=True, overflow="ellipsis")
        left.append(model or "no model", style="bold")
        if name:
            left.append(" · ", style="dim")
            left.append(name)
        left.append(" · ", style="dim")
        left.append(short_cwd(cwd), style="dim")
        if mode:  # the permission mode; Shift+Tab cycles it
            left.append(" · ", style="dim")
            left.append(mode, style="bold yellow" if mode == "yolo" else "cyan")
        self.left.update(left)

        right = Text(no_wrap=True)
        right.append(f"↑{tokens(status.input_tokens)} ↓{tokens(status.output_tokens)}", style="dim")
        if not status.total.priced:
            right.append(" · $?", style="dim")  # a model with no known price: unknown, not $0
        elif status.cost:
            right.append(f" · {usage_text.cost(status.total, 3)}", style="dim")
        if context_window and status.context_tokens:
            pct = 100 * status.context_tokens / context_window
            right.append(f" · ctx {pct:.0f}%", style="yellow" if pct >= 80 else "dim")
        right.append("  ")
        if busy:
            right.append(f"{SPINNER[self.frame % len(SPINNER)]} {status.activity}", style="bold cyan")
        else:
            right.append(status.activity if status.activity != "idle" else "ready", style="dim")
        self.right.update(right)
