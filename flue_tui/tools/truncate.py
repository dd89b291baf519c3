"""JavaScript string semantics for Flue's limits: UTF-16 units, trim, number formatting, quoting."""

from __future__ import annotations

import math
from collections.abc import Sequence

from flue_tui.core.jsstr import JS_WHITESPACE, len16
from flue_tui.core.surrogates import clean


def js_trim(s: str) -> str:
    return s.strip(JS_WHITESPACE)


def slice16(s: str, start: int, end: int | None = None) -> str:
    """JavaScript `s.slice(start, end)` counted in UTF-16 units.

    A cut through a surrogate pair leaves a lone surrogate in JS; we turn that half into
    U+FFFD (also one unit) because a lone surrogate cannot be stored or printed as UTF-8.
    """
    if s.isascii():
        return s[start:end]
    data = s.encode("utf-16-le", "surrogatepass")
    n = len(data) // 2
    lo = _js_index(start, n)
    hi = n if end is None else _js_index(end, n)
    if hi <= lo:
        return ""
    out = data[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")
    return clean(out)


def _js_index(i: int, n: int) -> int:
    return max(n + i, 0) if i < 0 else min(i, n)


def truncate_head(lines: Sequence[str], total: int, max_lines: int, max_bytes: int) -> tuple[str, bool, int]:
    """Flue's truncateHead over `total` slice lines, of which `lines` holds at least the needed prefix.

    Returns (text, was_truncated, lines_emitted). Callers that stream may pass fewer lines than
    `total` as long as the byte or line budget is exhausted before the list runs out.
    """
    parts: list[str] = []
    size = 0
    emitted = 0
    for i in range(total):
        if emitted >= max_lines:
            return "".join(parts), True, emitted
        line = lines[i]
        piece_len = len16(line) + (1 if emitted else 0)
        if size + piece_len > max_bytes:
            if emitted == 0:
                # A single line longer than the whole budget: show its head rather than nothing.
                return slice16(line, 0, max_bytes), True, 0
            return "".join(parts), True, emitted
        parts.append("\n" + line if emitted else line)
        size += piece_len
        emitted += 1
    return "".join(parts), False, emitted


def truncate_tail(text: str, max_lines: int, max_bytes: int) -> tuple[str, bool]:
    """Flue's truncateTail: last `max_lines` lines, then last `max_bytes` units; no notice."""
    lines = text.split("\n")
    if len(lines) <= max_lines and len16(text) <= max_bytes:
        return text, False
    result = "\n".join(lines[-max_lines:])
    if len16(result) > max_bytes:
        result = slice16(result, -max_bytes)
    return result, True


def js_number(x: float | int) -> str:
    """Render a number the way JavaScript's String(x) does (5 not 5.0, 1e-7, 1e+21)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int) and abs(x) < 10**21:
        return str(x)
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest round-tripping digits, which is what ECMAScript prints too.
    mantissa, _, exp = repr(abs(x)).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = int_part + frac_part
    n = len(int_part) + int(exp or 0)  # decimal point position within `digits`
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + body


def shell_quote(arg: str) -> str:
    """Flue's shellQuote: always single quotes, each `'` written as `'\\''`."""
    return "'" + arg.replace("'", "'\\''") + "'"


# find reads an operand starting with one of these (`-delete`, `(`, `!`, ...) as the start of its
# expression, so a model-chosen path could become an action such as -delete or -exec.
_EXPRESSION_START = ("-", "(", ")", "!", ",")


def path_operand(path: str) -> str:
    """`path` spelled so that no program can read it as an option or expression: `./` in front of
    a relative path that starts like one (the same file; plain paths stay byte-identical)."""
    return f"./{path}" if path.startswith(_EXPRESSION_START) else path


class HeadLines:
    """Streams `text.trim().split('\\n')`, keeping only the first lines (each capped) and the count."""

    # grep and glob consume unbounded command output this way in bounded memory while still
    # matching what Flue computes from the whole string.

    def __init__(self, max_lines: int, line_cap: int | None = None, fold_at: int = 1 << 20) -> None:
        self.max_lines = max_lines
        self.fold_at = fold_at
        self.line_cap = line_cap  # in chars; keep a few more than the unit limit being tested
        self.lines: list[str] = []
        self._newlines = 0
        self._started = False
        self._pending: list[str] = []  # whitespace after the last non-whitespace char
        self._pending_len = 0
        self._pending_extra_newlines = 0

    def feed(self, chunk: str) -> None:
        body = chunk.rstrip(JS_WHITESPACE)
        if not body:
            if self._started:
                self._pending.append(chunk)
                self._pending_len += len(chunk)
                if self._pending_len > self.fold_at:
                    self._fold_pending()
            return
        if not self._started:
            self._started = True
            self._pending.clear()
            self._pending_len = 0
            body = body.lstrip(JS_WHITESPACE)
            self.lines.append("")
        else:
            self._commit("".join(self._pending))
            self._newlines += self._pending_extra_newlines
        self._commit(body)
        rest = chunk[len(chunk.rstrip(JS_WHITESPACE)) :]
        self._pending = [rest] if rest else []
        self._pending_len = len(rest)
        self._pending_extra_newlines = 0

    def _fold_pending(self) -> None:
        # Whitespace-only run: only its first lines (capped) and its newline count can matter.
        segs = "".join(self._pending).split("\n")
        keep = self.max_lines + 2
        cap = self.line_cap
        kept = [s[:cap] if cap is not None else s for s in segs[:keep]]
        self._pending_extra_newlines += len(segs) - len(kept)
        self._pending = ["\n".join(kept)]
        self._pending_len = len(self._pending[0])

    def _commit(self, text: str) -> None:
        if not text:
            return
        if len(self.lines) > self.max_lines:
            self._newlines += text.count("\n")
            return
        segs = text.split("\n")
        self._newlines += len(segs) - 1
        cap = self.line_cap
        cur = self.lines[-1] + segs[0]
        self.lines[-1] = cur[:cap] if cap is not None else cur
        for seg in segs[1:]:
            if len(self.lines) > self.max_lines:
                break
            self.lines.append(seg[:cap] if cap is not None else seg)

    @property
    def empty(self) -> bool:
        """True when the trimmed text is empty."""
        return not self._started

    @property
    def total(self) -> int:
        """`trim(text).split('\\n').length`."""
        return self._newlines + 1 if self._started else 1

    def head(self) -> list[str]:
        """The first `max_lines` lines of the trimmed text (each capped to `line_cap` chars)."""
        return self.lines[: self.max_lines] if self._started else [""]
