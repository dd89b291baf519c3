"""The JSON-RPC line transport on stdin/stdout, for the SDK's message-level `Transport` seam.

The SDK's own stdio transport drops a line that is not JSON without a word and reads a line of any
length into memory. A client is untrusted input: here a malformed line gets a JSON-RPC error (parse
error, invalid request) and the agent reads on; a line past MAX_LINE is skipped to its end, never
held whole; something that is JSON but not a request, notification or response is answered, not
handed to the SDK (whose receive loop would die on it).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from typing import Any

MAX_LINE = 64 * 1024 * 1024  # an embedded file or image is big; a line past this is refused
_CHUNK = 1024 * 1024


def _error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def check_message(data: Any) -> dict[str, Any] | None:
    """The error answer for a decoded line that is no JSON-RPC message, or None when it is one."""
    if not isinstance(data, dict):
        return _error(-32600, "Invalid Request: a JSON-RPC message is a JSON object.")
    request_id = data.get("id")
    good_id = request_id is None or (isinstance(request_id, (int, str)) and not isinstance(request_id, bool))
    if not good_id:
        return _error(-32600, "Invalid Request: the id must be a string, a number or null.")
    if "method" in data:
        if not isinstance(data["method"], str):
            return _error(-32600, "Invalid Request: the method must be a string.", request_id)
        params = data.get("params")
        if params is not None and not isinstance(params, (dict, list)):
            return _error(-32602, "Invalid params: params must be an object.", request_id)
        return None
    if "id" in data and ("result" in data or "error" in data):
        return None
    return _error(-32600, "Invalid Request: neither a request, a notification nor a response.", request_id)


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


class LineTransport:
    """Newline-delimited JSON on a reader and a raw output fd (the SDK's Transport protocol)."""

    def __init__(self, reader: asyncio.StreamReader, out_fd: int) -> None:
        self.reader = reader
        self.out_fd = out_fd
        self._lock = asyncio.Lock()
        self._closed = False

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:  # whole lines, in order
            await asyncio.to_thread(self._write_all, data)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.out_fd, view) :]

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._line()
            if line is None:
                return None
            if not line.strip():
                continue
            try:  # NaN and Infinity are no JSON: echoed back in an error's data, a strict client chokes
                data = json.loads(line, parse_constant=_not_json)
            except (ValueError, RecursionError):
                await self._answer(_error(-32700, "Parse error: the line is not JSON (UTF-8)."))
                continue
            problem = check_message(data)
            if problem is not None:
                if "method" in data if isinstance(data, dict) else False:
                    if "id" not in data:  # a notification gets no answer, even a bad one
                        continue
                await self._answer(problem)
                continue
            return data

    async def _answer(self, message: dict[str, Any]) -> None:
        try:
            await self.send(message)
        except OSError:
            pass

    async def _line(self) -> bytes | None:
        """The next line, or None at the end of input; a line past MAX_LINE is skipped with an error."""
        chunks: list[bytes] = []
        size = 0
        too_long = False
        while True:
            try:
                part = await self.reader.readuntil(b"\n")
                done = True
            except asyncio.LimitOverrunError as exc:
                part = await self.reader.readexactly(exc.consumed or 1)
                done = False
            except asyncio.IncompleteReadError as exc:
                part, done = exc.partial, True
                if not part and not chunks:
                    return None
            size += len(part)
            if size > MAX_LINE:
                too_long, chunks = True, []
            elif not too_long:
                chunks.append(part)
            if done:
                break
        if too_long:
            await self._answer(_error(-32600, f"Invalid Request: the line is longer than {MAX_LINE} bytes."))
            return b""
        return b"".join(chunks)

    async def idle(self) -> None:
        """Until the line being written (if any) is out."""
        async with self._lock:
            pass

    async def close(self) -> None:
        self._closed = True


async def stdio_transport(in_fd: int, out_fd: int) -> LineTransport:
    """`in_fd` as a stream reader (a pipe or socket on the loop; a file or tty through a thread);
    `out_fd` is stdout's original fd, which serve.py keeps for the protocol alone."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_CHUNK)
    protocol = asyncio.StreamReaderProtocol(reader)
    try:
        await loop.connect_read_pipe(lambda: protocol, os.fdopen(in_fd, "rb", buffering=0, closefd=False))
    except ValueError:  # a regular file or /dev/null: read it in a thread instead
        threading.Thread(target=_feed, args=(loop, reader, in_fd), daemon=True).start()
    return LineTransport(reader, out_fd)


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, fd: int) -> None:
    try:
        while data := os.read(fd, _CHUNK):
            loop.call_soon_threadsafe(reader.feed_data, data)
    except OSError:
        pass
    finally:
        loop.call_soon_threadsafe(reader.feed_eof)
