"""Lone UTF-16 surrogates: joined where they pair, U+FFFD where they cannot.

A provider's JSON may escape one character as two halves (`"\\ud83d"` in one stream event,
`"\\ude00"` in the next); decoded, each half is a lone surrogate, which UTF-8 cannot encode, so a
reply holding one could be written nowhere (stdout, SQLite, a JSON-RPC line). A file name read with
Python's `surrogateescape` holds them too. `clean` is the rule; `Joiner` applies it to a stream of
deltas, holding a high half back until the next delta says whether its low half follows.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR_OR_LONE = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _one(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:
        return chr(0x10000 + ((ord(found[0]) - 0xD800) << 10) + (ord(found[1]) - 0xDC00))
    return REPLACEMENT


def clean(text: str) -> str:
    """`text` with each high+low pair joined into its character and every other surrogate U+FFFD."""
    return _PAIR_OR_LONE.sub(_one, text) if has_surrogate(text) else text


def clean_value(value: Any) -> Any:
    """A decoded JSON value with every string in it (keys too) cleaned; the same object when clean."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list):
        items = [clean_value(v) for v in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, dict):
        pairs = [(clean_value(k), clean_value(v)) for k, v in value.items()]
        same = all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True))
        return value if same else dict(pairs)
    return value


class Joiner:
    """One stream of text deltas (a reply's text, its thinking). `feed` gives the clean part of a
    delta, holding back a trailing high half; `flush` ends the stream (a held half is U+FFFD)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        self.held = ""

    def feed(self, piece: str) -> str:
        if self.held:
            piece, self.held = self.held + piece, ""
        elif not has_surrogate(piece):
            return piece
        if "\ud800" <= piece[-1] <= "\udbff":
            piece, self.held = piece[:-1], piece[-1]
        return clean(piece)

    def flush(self) -> str:
        held, self.held = self.held, ""
        return REPLACEMENT if held else ""
