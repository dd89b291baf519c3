"""Bounded per-stream output tail that still formats exactly like the full output."""

from __future__ import annotations

from collections import deque

from flue_tui.core.jsstr import JS_WHITESPACE


class StreamTail:
    """A bounded tail of one stream that trims and tail-truncates exactly like the whole text."""

    # Flue's formatBashResult only ever looks at the last 51200 units of trim(stdout + "\n" +
    # stderr). So we keep `keep` chars ending at the last non-whitespace char, the whitespace
    # run after it separately (also capped: trim() may drop it whole), and one evicted
    # non-whitespace char, so that trim() cannot eat whitespace that was not leading in the
    # full text. `keep` must exceed 51201.

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._main: deque[str] = deque()
        self._main_len = 0
        self._main_trailing_ws = 0
        self._ws: deque[str] = deque()
        self._ws_len = 0
        self._dropped_char = ""

    def feed(self, text: str) -> None:
        body = text.rstrip(JS_WHITESPACE)
        if not body:
            self._ws.append(text)
            self._ws_len += len(text)
            while self._ws_len - len(self._ws[0]) >= self._keep:
                self._ws_len -= len(self._ws.popleft())
            return
        if self._ws:
            self._main.extend(self._ws)
            self._main_len += self._ws_len
            self._ws.clear()
            self._ws_len = 0
        self._main.append(text)
        self._main_len += len(text)
        self._main_trailing_ws = len(text) - len(body)
        while self._main_len - len(self._main[0]) - self._main_trailing_ws >= self._keep:
            old = self._main.popleft()
            self._main_len -= len(old)
            core = old.rstrip(JS_WHITESPACE)
            if core.strip(JS_WHITESPACE):
                self._dropped_char = core[-1]

    def value(self) -> str:
        text = "".join(self._main) + "".join(self._ws)
        if self._dropped_char and (not text or text[0] in JS_WHITESPACE):
            text = self._dropped_char + text
        return text
