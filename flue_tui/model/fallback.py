"""--fallback-model: a model turn the main model cannot serve (overloaded or failing server,
unknown model, unreachable) is sent to the fallback instead, and the rest of the run stays there,
as Claude Code does. Only before anything streamed: a half-streamed turn is never stitched.
Built by runtime/wiring.py for every front end; `on_switch` gets the one sentence that says so."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from flue_tui.model.base import ModelClient, ModelError, StreamItem

SWITCH_KINDS = frozenset({"server", "model_unknown", "connection"})


class FallbackClient:
    """A ModelClient: the main model until it is unavailable, then the fallback."""

    def __init__(self, primary: ModelClient, fallback: ModelClient, on_switch: Callable[[str], None]) -> None:
        self.primary, self.fallback, self.on_switch = primary, fallback, on_switch
        self.switched = False

    @property
    def model(self) -> str:
        return self._current.model

    @property
    def _current(self) -> ModelClient:
        return self.fallback if self.switched else self.primary

    @property
    def effort(self) -> str | None:
        """/effort reaches both clients, so a switch keeps what the user chose."""
        return getattr(self._current, "effort", None)

    @effort.setter
    def effort(self, value: str | None) -> None:
        for client in (self.primary, self.fallback):
            if hasattr(client, "effort"):
                client.effort = value  # type: ignore[attr-defined]  # both built by wiring.model_client

    async def stream_turn(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *, max_tokens: int | None = None
    ) -> AsyncIterator[StreamItem]:
        if not self.switched:
            streamed = False
            try:
                async for item in self.primary.stream_turn(messages, tools, max_tokens=max_tokens):
                    streamed = True
                    yield item
                return
            except ModelError as exc:
                if streamed or exc.kind not in SWITCH_KINDS:
                    raise
                self.switched = True
                self.on_switch(
                    f"{self.primary.model} is unavailable ({exc.message}); "
                    f"using the fallback model {self.fallback.model}."
                )
        async for item in self.fallback.stream_turn(messages, tools, max_tokens=max_tokens):
            yield item

    def context_window(self) -> int | None:
        return self._current.context_window()

    def max_output_tokens(self) -> int | None:
        return self._current.max_output_tokens()

    def image_refusal(self) -> str | None:
        return self._current.image_refusal()
