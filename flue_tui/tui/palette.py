"""Ctrl+P: the slash commands and skills in Textual's command palette."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from flue_tui.tui import commands

if TYPE_CHECKING:
    from flue_tui.tui.app import FlueApp


class SlashCommandsProvider(Provider):
    def _items(self) -> list[tuple[str, str]]:
        app: FlueApp = self.app  # type: ignore[assignment]
        return [(name, help_text) for name, help_text, _ in app.command_items()]

    async def _run(self, name: str) -> None:
        app: FlueApp = self.app  # type: ignore[assignment]
        await commands.run(app, name, "")

    async def discover(self) -> Hits:
        for name, help_text in self._items():
            yield DiscoveryHit(f"/{name}", partial(self._run, name), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text in self._items():
            score = matcher.match(f"/{name}")
            if score > 0:
                yield Hit(score, matcher.highlight(f"/{name}"), partial(self._run, name), help=help_text)
