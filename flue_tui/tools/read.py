"""The `read` tool: Flue's formatReadContent, computed by streaming instead of loading the file."""

from __future__ import annotations

import asyncio
import io
import math
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

from flue_tui.core.abort import ToolError
from flue_tui.core.details import ReadDetails
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import Sandbox, StreamingReads
from flue_tui.tools.base import (
    MAX_READ_BYTES,
    MAX_READ_LINES,
    ToolContext,
    ToolResult,
    prop,
    schema,
)
from flue_tui.tools.locks import check_abort
from flue_tui.tools.truncate import js_number, truncate_head

# Cache-sized chunks: read+count runs faster on them than on MiB-sized ones (docs/benchmarks.md).
CHUNK = 128 << 10
BINARY_SNIFF = 8192
# `wc -l` counts lines faster than CPython's bytes.count(b"\n"), so past
# this many unread bytes the rest of the file is counted by wc reading our own descriptor.
EXTERNAL_COUNT_MIN = 32 << 20
# Every 3 bytes of UTF-8 (valid or replaced) decode to at least one UTF-16 unit, so this many
# bytes from the start line always exhaust the 51200-unit budget.
COLLECT_BYTES = 3 * MAX_READ_BYTES + 16


@dataclass(slots=True)
class _Scan:
    """What reading a file's start found: whether it is binary, its newlines, the bytes wanted."""

    binary_size: int | None  # set when the file looks binary
    newlines: int
    collected: bytes  # raw bytes from the start of the wanted line, bounded


def _nth_newline(buf: bytearray, lo: int, hi: int, k: int) -> int:
    """Index of the k-th (k >= 1) b'\\n' in buf[lo:hi]; the caller guarantees it exists."""
    if k <= 64:
        pos = lo - 1
        for _ in range(k):
            pos = buf.find(b"\n", pos + 1, hi)
        return pos
    a, b = lo, hi - 1
    while a < b:  # smallest p with count(lo..p) >= k: ~17 C-speed counts, not k Python calls
        mid = (a + b) // 2
        if buf.count(b"\n", lo, mid + 1) >= k:
            b = mid
        else:
            a = mid + 1
    return a


def _scan(f: io.BufferedIOBase, start: int, chunk: int = CHUNK, external: bool = True) -> _Scan:
    """One pass: count every newline, keep the bytes of lines start.. up to the read budget."""
    buf = bytearray(chunk)
    newlines = 0
    collected = bytearray()
    collected_newlines = 0
    collecting = start == 0
    finished = False
    first = True
    while True:
        n = f.readinto(buf)
        if not n:
            break
        if first:
            first = False
            if buf.find(b"\0", 0, min(n, BINARY_SNIFF)) != -1:
                return _Scan(os.fstat(f.fileno()).st_size if _has_fd(f) else _size(f), 0, b"")
        count = buf.count(b"\n", 0, n)
        pos = 0
        if not collecting and count >= start - newlines:
            pos = _nth_newline(buf, 0, n, start - newlines) + 1
            collecting = True
        if collecting and not finished:
            end = n
            want = MAX_READ_LINES - collected_newlines
            piece = buf.count(b"\n", pos, n)
            if piece >= want:
                end = _nth_newline(buf, pos, n, want)
                finished = True
            if len(collected) + (end - pos) >= COLLECT_BYTES:
                end = pos + COLLECT_BYTES - len(collected)
                finished = True
            collected += buf[pos:end]
            collected_newlines += piece if end == n else buf.count(b"\n", pos, end)
        newlines += count
        if finished and external:
            rest = _count_rest_externally(f)
            if rest is not None:
                newlines += rest
                break
            external = False
    return _Scan(None, newlines, bytes(collected))


def _count_rest_externally(f: io.BufferedIOBase) -> int | None:
    """Newlines from f's position to EOF via `wc -l` on the same descriptor; None if unavailable."""
    wc = shutil.which("wc")
    if wc is None:
        return None
    try:
        fd = f.fileno()
        if os.fstat(fd).st_size - f.tell() < EXTERNAL_COUNT_MIN:
            return None
        os.lseek(fd, f.tell(), os.SEEK_SET)  # the child shares the offset; skip Python's buffer
        out = subprocess.run([wc, "-l"], stdin=fd, capture_output=True, timeout=120, env={"LC_ALL": "C"})
        return int(out.stdout.split()[0]) if out.returncode == 0 else None
    except (OSError, ValueError, IndexError, io.UnsupportedOperation, subprocess.SubprocessError):
        return None


def _has_fd(f: io.BufferedIOBase) -> bool:
    try:
        f.fileno()
        return True
    except (OSError, io.UnsupportedOperation):
        return False


def _size(f: io.BufferedIOBase) -> int:
    return f.seek(0, io.SEEK_END)


def _js_int(x: float) -> int:
    """ToIntegerOrInfinity for the finite numbers JSON can carry (truncate toward zero)."""
    return int(x) if math.isfinite(x) else (1 << 62 if x > 0 else -(1 << 62))


def _truthy(x: Any) -> bool:
    return bool(x) and not (isinstance(x, float) and math.isnan(x))


class ReadTool:
    name = "read"
    label = "Read File"
    traits = ToolTraits(kind="read", paths=("path",), read_only=True, details=ReadDetails)
    description = "Read a file. Output is truncated to 2000 lines or 50KB — use offset/limit for large files."
    parameters = schema(
        {
            "path": prop("string", "Path to the file to read"),
            "offset": prop("number", "Line number to start from (1-indexed)"),
            "limit": prop("number", "Maximum number of lines to read"),
        },
        ["path"],
    )

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_abort(ctx.signal)
        path: str = args["path"]
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(self.sandbox, StreamingReads):
            return await asyncio.to_thread(_read_with, self.sandbox, path, offset, limit)
        data = await self.sandbox.read_bytes(path)
        return await asyncio.to_thread(read_result, io.BytesIO(data), path, offset, limit)


def _read_with(sandbox: StreamingReads, path: str, offset: Any, limit: Any) -> ToolResult:
    with sandbox.open_binary(path) as f:
        return read_result(f, path, offset, limit)


def read_result(
    f: io.BufferedIOBase,
    path: str,
    offset: Any = None,
    limit: Any = None,
    chunk: int = CHUNK,
    external: bool = True,
) -> ToolResult:
    """Flue's formatReadContent over a binary file object, streamed (blocking)."""
    start_line = max(0, offset - 1) if _truthy(offset) else 0
    istart = _js_int(start_line)
    scan = _scan(f, istart, chunk, external)
    if scan.binary_size is not None:
        return ToolResult(
            f"Binary file: {path} ({scan.binary_size} bytes); not shown.",
            ReadDetails(path, size=scan.binary_size, binary=True),
        )
    total = scan.newlines + 1
    if start_line >= total:
        raise ToolError(f"Offset {js_number(offset)} is beyond end of file ({total} lines total)")
    end_line = start_line + limit if _truthy(limit) else total
    iend = _js_int(end_line)
    iend = max(total + iend, 0) if iend < 0 else min(iend, total)
    count = max(0, iend - min(istart, total))

    lines = scan.collected.decode("utf-8", "replace").split("\n")
    text, truncated, emitted = truncate_head(lines, count, MAX_READ_LINES, MAX_READ_BYTES)
    if truncated and emitted == 0:
        text += (
            f"\n\n[Line {js_number(start_line + 1)} exceeds the {MAX_READ_BYTES}-byte read limit; "
            f"showing the first {MAX_READ_BYTES} bytes of it. "
            "The remainder of this line is not accessible via offset/limit.]"
        )
    elif truncated:
        shown_end = start_line + emitted
        text += (
            f"\n\n[Showing lines {js_number(start_line + 1)}-{js_number(shown_end)} of {total}. "
            f"Use offset={js_number(shown_end + 1)} to continue.]"
        )
    shown = max(emitted, 1) if truncated else count  # a first line cut at the byte limit still shows part of it
    return ToolResult(text, ReadDetails(path, lines=total, shown=shown if shown < total else None))
