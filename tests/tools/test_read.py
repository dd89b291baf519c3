"""The read tool: Flue's formatReadContent output for every case, computed by streaming."""

from __future__ import annotations

import io
import random
import resource
import time

import pytest

from flue_tui.core.abort import AbortError, ToolError
from flue_tui.core.details import ReadDetails
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.base import MAX_READ_BYTES
from flue_tui.tools.read import ReadTool, read_result
from flue_tui.tools.truncate import js_number, truncate_head

LONG_LINE_NOTICE = (
    "\n\n[Line {n} exceeds the 51200-byte read limit; showing the first 51200 bytes of it. "
    "The remainder of this line is not accessible via offset/limit.]"
)


async def _read(tmp_path, ctx, data: bytes | str, **args):
    f = tmp_path / "f.txt"
    f.write_bytes(data.encode() if isinstance(data, str) else data)
    return await ReadTool(LocalSandbox(str(tmp_path))).execute({"path": "f.txt", **args}, ctx)


async def test_small_file_verbatim(tmp_path, ctx):
    r = await _read(tmp_path, ctx, "a\nb\n")
    assert r.text == "a\nb\n"
    assert r.details == ReadDetails("f.txt", lines=3)
    assert not r.is_error


async def test_empty_file(tmp_path, ctx):
    r = await _read(tmp_path, ctx, "")
    assert r.text == "" and r.details.lines == 1


async def test_line_count_notice(tmp_path, ctx):
    r = await _read(tmp_path, ctx, "\n".join(f"line {i}" for i in range(1, 2501)))
    body = "\n".join(f"line {i}" for i in range(1, 2001))
    assert r.text == body + "\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"


async def test_byte_budget_notice(tmp_path, ctx):
    lines = ["x" * 100] * 1000
    r = await _read(tmp_path, ctx, "\n".join(lines))
    # 100 + 505 * 101 = 51105 units fit; one more line would make 51206.
    assert r.text == "\n".join(lines[:506]) + "\n\n[Showing lines 1-506 of 1000. Use offset=507 to continue.]"


async def test_offset_and_notice_numbers(tmp_path, ctx):
    r = await _read(tmp_path, ctx, "\n".join(str(i) for i in range(1, 5001)), offset=3000)
    body = "\n".join(str(i) for i in range(3000, 5000))
    assert r.text == body + "\n\n[Showing lines 3000-4999 of 5000. Use offset=5000 to continue.]"


async def test_over_long_first_line(tmp_path, ctx):
    r = await _read(tmp_path, ctx, "y" * 60_000 + "\nshort\n")
    assert r.text == "y" * MAX_READ_BYTES + LONG_LINE_NOTICE.format(n=1)
    r = await _read(tmp_path, ctx, "short\n" + "z" * 60_000, offset=2)
    assert r.text == "z" * MAX_READ_BYTES + LONG_LINE_NOTICE.format(n=2)


async def test_offset_beyond_end(tmp_path, ctx):
    with pytest.raises(ToolError) as exc:
        await _read(tmp_path, ctx, "a\nb\n", offset=4)
    assert str(exc.value) == "Offset 4 is beyond end of file (3 lines total)"
    r = await _read(tmp_path, ctx, "a\nb\n", offset=3)  # the empty last line exists
    assert r.text == ""


async def test_offset_zero_or_negative_starts_at_top(tmp_path, ctx):
    assert (await _read(tmp_path, ctx, "a\nb", offset=0)).text == "a\nb"
    assert (await _read(tmp_path, ctx, "a\nb", offset=-3)).text == "a\nb"


async def test_limit_stops_without_notice(tmp_path, ctx):
    r = await _read(tmp_path, ctx, "\n".join(str(i) for i in range(1, 11)), offset=2, limit=3)
    assert r.text == "2\n3\n4"
    assert r.details == ReadDetails("f.txt", lines=10, shown=3)  # the UI says "3 of 10 lines"


async def test_crlf_and_bom_left_as_is(tmp_path, ctx):
    r = await _read(tmp_path, ctx, b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert r.text == "\ufeffone\r\ntwo\r\n"
    assert r.details.lines == 3


async def test_astral_characters_count_two_units(tmp_path, ctx):
    lines = ["😀" * 50] * 1000  # 100 units per line, like the ASCII budget case
    r = await _read(tmp_path, ctx, "\n".join(lines))
    assert r.text.endswith("\n\n[Showing lines 1-506 of 1000. Use offset=507 to continue.]")
    r = await _read(tmp_path, ctx, "😀" * 25_601)
    assert r.text == "😀" * 25_600 + LONG_LINE_NOTICE.format(n=1)
    # The cut falls inside a surrogate pair: that half shows as U+FFFD.
    r = await _read(tmp_path, ctx, "a" + "😀" * 25_600)
    assert r.text == "a" + "😀" * 25_599 + "\ufffd" + LONG_LINE_NOTICE.format(n=1)


async def test_invalid_utf8_becomes_replacement_char(tmp_path, ctx):
    r = await _read(tmp_path, ctx, b"ok\xff\xfe\nalso \xe2\x82\n")
    assert r.text == "ok\ufffd\ufffd\nalso \ufffd\n"


async def test_binary_file_is_not_shown(tmp_path, ctx):
    r = await _read(tmp_path, ctx, b"\x7fELF\x00\x01\x02" + b"x" * 100)
    assert r.text == "Binary file: f.txt (107 bytes); not shown."
    assert r.details == ReadDetails("f.txt", size=107, binary=True)


async def test_missing_file_and_directory(tmp_path, ctx):
    tool = ReadTool(LocalSandbox(str(tmp_path)))
    with pytest.raises(ToolError) as exc:
        await tool.execute({"path": "x.txt"}, ctx)
    assert str(exc.value) == f"ENOENT: no such file or directory, open '{tmp_path}/x.txt'"
    with pytest.raises(ToolError) as exc:
        await tool.execute({"path": str(tmp_path)}, ctx)
    assert str(exc.value) == "EISDIR: illegal operation on a directory, read"


async def test_aborted_signal_checked_first(tmp_path, ctx):
    ctx.signal.abort()
    with pytest.raises(AbortError) as exc:
        await ReadTool(LocalSandbox(str(tmp_path))).execute({"path": "missing"}, ctx)
    assert str(exc.value) == "Operation aborted"


def _flue_format(path: str, content: str, offset, limit) -> str:
    """A straight port of Flue's formatReadContent over the whole text, as the oracle."""
    all_lines = content.split("\n")
    start = max(0, offset - 1) if offset else 0
    if start >= len(all_lines):
        raise ToolError(f"Offset {js_number(offset)} is beyond end of file ({len(all_lines)} lines total)")
    end = start + limit if limit else len(all_lines)
    lines = all_lines[int(start) : int(end)]
    text, truncated, emitted = truncate_head(lines, len(lines), 2000, 51200)
    if truncated and emitted == 0:
        text += LONG_LINE_NOTICE.format(n=js_number(start + 1))
    elif truncated:
        shown = start + emitted
        text += f"\n\n[Showing lines {js_number(start + 1)}-{js_number(shown)} of {len(all_lines)}. Use offset={js_number(shown + 1)} to continue.]"
    return text


@pytest.mark.parametrize("seed", range(120))
def test_streaming_matches_whole_file_formatting(seed):
    rng = random.Random(seed)
    pieces = ["a", "é", "😀", "\n", "\r\n", "\xff", "\xe2\x82", "x" * 300, "\n" * 50, "w" * 40_000, "L" * 60_000]
    weights = [20, 5, 5, 20, 3, 1, 1, 3, 2, 0.3, 0.4]
    raw = b"".join(
        (p.encode("latin-1") if p in ("\xff", "\xe2\x82") else p.encode())
        for p in rng.choices(pieces, weights, k=rng.choice([0, 10, 300, 3000, 8000]))
    )
    text = raw.decode("utf-8", "replace")
    total = text.count("\n") + 1
    offset = rng.choice([None, 0, 1, 2, rng.randint(1, total + 2), total, total + 1, 2.5])
    limit = rng.choice([None, 0, 1, 5, 2500, -2, rng.randint(1, 3000)])
    # Tiny chunks exercise every boundary case; keep them to small inputs so the test stays fast.
    chunk = rng.choice([1, 3, 64] if len(raw) < 20_000 else [4096, 65536, 1 << 20])
    try:
        expected = _flue_format("p", text, offset, limit)
    except ToolError as err:
        with pytest.raises(ToolError) as exc:
            read_result(io.BytesIO(raw), "p", offset, limit, chunk=chunk)
        assert str(exc.value) == str(err)
        return
    got = read_result(io.BytesIO(raw), "p", offset, limit, chunk=chunk)
    assert got.text == expected
    assert isinstance(got.details, ReadDetails) and got.details.path == "p" and got.details.lines == total
    assert got.details.shown is None or 0 <= got.details.shown < total  # a partial read's count, for the UI


async def test_deep_offset_in_large_file_streams(tmp_path, ctx):
    path = tmp_path / "big.txt"
    with open(path, "wb") as f:
        block = b"".join(b"%09d some filler text to make the line longer\n" % i for i in range(100_000))
        for _ in range(12):  # 1.2M lines, ~60 MB
            f.write(block)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.monotonic()
    r = await ReadTool(LocalSandbox(str(tmp_path))).execute({"path": "big.txt", "offset": 1_000_000, "limit": 3}, ctx)
    assert time.monotonic() - t0 < 30  # streamed, not quadratic (speed itself is bench/'s; generous here)
    assert r.text == (
        "000099999 some filler text to make the line longer\n"
        "000000000 some filler text to make the line longer\n"
        "000000001 some filler text to make the line longer"
    )
    assert r.details.lines == 1_200_001
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 50
    # The `wc -l` shortcut for the rest of a big file must agree with counting in Python.
    for offset, limit in ((1_000_000, 3), (None, None), (1_199_990, None)):
        with open(path, "rb") as f:
            fast = read_result(f, "big.txt", offset, limit)
        with open(path, "rb") as f:
            slow = read_result(f, "big.txt", offset, limit, external=False)
        assert fast == slow
