"""A regular expression compiled when it is first used, not when its module is imported.

`re.compile` runs the pattern through Python-level parsing and compiling (~0.1-0.5 ms each): a
session's start imported ~35 patterns that only an error, a tool call, an MCP server or a rewind
uses, ~5 ms before a launch prompt's first token. A `Lazy` stands where the compiled pattern stood
(`_CUT = lazy(r"...")`, then `_CUT.search(text)`) and compiles it on the first attribute asked for.
Patterns used on every token, or by the first answer anyway, stay `re.compile`d.
"""

from __future__ import annotations

import re
from typing import Any, cast, overload


class Lazy:
    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def compiled(self) -> re.Pattern[Any]:
        # Two threads compiling at once each get an equal pattern; either is kept.
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:  # match, search, sub, pattern, …: the compiled pattern's
        if name.startswith("_"):  # a slot not set yet (copy, pickle), a protocol's dunder: not the pattern's
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Lazy, (self._pattern, self._flags))


@overload
def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]: ...
@overload
def lazy(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]: ...
def lazy(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any]:
    """`re.compile(pattern, flags)`, deferred to its first use; typed as the pattern it stands for
    (it answers every attribute one has; `isinstance(x, re.Pattern)` is False)."""
    return cast("re.Pattern[Any]", Lazy(pattern, flags))
