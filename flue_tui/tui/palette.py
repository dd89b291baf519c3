"""Ctrl+P: the slash commands and skills in Textual's command palette."""

from __future__ import annotations

from functools import partial
from typing import Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from flue_tui.ui.commands import FrontEnd
from flue_tui.ui.dispatch import dispatch


class _Host(FrontEnd, Protocol):
    def command_items(self) -> list[tuple[str, str, bool]]: ...


class SlashCommandsProvider(Provider):
    def _items(self) -> list[tuple[str, str]]:
        return [(name, help_text) for name, help_text, _ in cast(_Host, self.app).command_items()]

    async def _run(self, name: str) -> None:
        await dispatch(cast(_Host, self.app), name, "")

    async def discover(self) -> Hits:
        for name, help_text in self._items():
            yield DiscoveryHit(f"/{name}", partial(self._run, name), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text in self._items():
            score = matcher.match(f"/{name}")
            if score > 0:
                yield Hit(score, matcher.highlight(f"/{name}"), partial(self._run, name), help=help_text)
