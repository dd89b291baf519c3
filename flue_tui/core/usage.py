"""A turn's or a session's token counts and cost.

Apart from the messages (core/messages.py re-exports it) so the app's status bar and event router
can hold one before the first frame without creating the message classes and importing the image
module, which would delay the first frame; those come with the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Usage:
    """Token counts and cost of one model turn or a running total."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    # False once any part had no known price: the cost is then unknown (a lower bound), not $0.
    priced: bool = True

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.cost += other.cost
        self.priced = self.priced and other.priced

    @property
    def known_cost(self) -> float | None:
        """The cost in USD, or None when some turn's model had no known price."""
        return self.cost if self.priced else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.input + self.output,
            "cost": round(self.cost, 10),
            "priced": self.priced,
        }
