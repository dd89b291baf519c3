"""Server-sent events from an untrusted body: `(event, data)` pairs, bounded in every direction.

A provider's stream may be hostile or broken: no newline for megabytes, bytes that are not UTF-8,
lines that are no SSE field, an endless run of comments. Each gets one sentence (StreamFault),
never a traceback or unbounded memory; an endless stream of *events* is the fold's to cut.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

MAX_LINE = 4 << 20  # bytes in one line: past every real event (a whole tool call's arguments fit)
MAX_IDLE_LINES = 250_000  # lines in a row that carry no event (comments, keep-alives, junk)


class StreamFault(ValueError):
    """The body is not a readable event stream; the message is the one sentence shown."""


async def events(chunks: AsyncIterator[bytes]) -> AsyncIterator[tuple[str, str]]:
    """The events of a `text/event-stream` body as (event name or "", data). Fields other than
    `event` and `data` are ignored, as the SSE spec says; an event ends at a blank line."""
    buffer = b""
    name = ""
    data: list[str] = []
    idle = 0
    async for chunk in chunks:
        buffer = buffer + chunk if buffer else chunk
        start = 0
        while True:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            raw = buffer[start:end]
            start = end + 1
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            idle += 1  # a blank line ending no event counts too: a flood of them is junk like any
            if idle > MAX_IDLE_LINES:
                raise StreamFault(f"The provider sent {MAX_IDLE_LINES:,} stream lines without an event.")
            if not raw:
                if data:
                    yield name, "\n".join(data)
                    idle = 0
                name, data = "", []
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise StreamFault("The provider sent a stream line that is not UTF-8.") from None
            field, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if field == "data":
                data.append(value)
            elif field == "event":
                name = value
        buffer = buffer[start:]
        if len(buffer) > MAX_LINE:
            raise StreamFault(f"The provider sent a stream line over {MAX_LINE >> 20} MiB.")
    if data:  # a last event without its blank line: the body's end closes it (a partial line is dropped)
        yield name, "\n".join(data)
