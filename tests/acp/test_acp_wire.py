"""The line transport on its own (in-process, real pipes): a line past the limit is skipped to its
end with one error answer, never held whole, and the next line is read as usual."""

from __future__ import annotations

import asyncio
import json
import os

from flue_tui.acp import wire


def test_an_overlong_line_is_refused_and_reading_goes_on(monkeypatch):
    monkeypatch.setattr(wire, "MAX_LINE", 4096)

    async def main():
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        transport = await wire.stdio_transport(in_r, out_w)
        good = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        data = b'{"jsonrpc": "2.0", "id": 0, "x": "' + b"a" * 100_000 + b'"}\n' + json.dumps(good).encode() + b"\n"

        def feed() -> None:  # more than a pipe holds: written while the transport reads
            with os.fdopen(in_w, "wb") as f:
                f.write(data)

        feeding = asyncio.ensure_future(asyncio.to_thread(feed))
        got = await asyncio.wait_for(transport.receive(), 60)
        end = await asyncio.wait_for(transport.receive(), 60)
        await feeding
        await transport.idle()
        os.close(out_w)
        answers = [json.loads(line) for line in os.read(out_r, 65536).splitlines()]
        return got, end, answers

    got, end, answers = asyncio.run(main())
    assert got == {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    assert end is None
    assert [a["error"]["code"] for a in answers] == [-32600] and "longer than 4096" in answers[0]["error"]["message"]


def _code(data: object) -> int | None:
    problem = wire.check_message(data)
    return problem["error"]["code"] if problem is not None else None


def test_check_message_names_what_is_wrong():
    assert _code({"jsonrpc": "2.0", "id": 1, "method": "x"}) is None
    assert _code({"jsonrpc": "2.0", "id": 1, "result": {}}) is None
    assert _code({"jsonrpc": "2.0", "id": True, "method": "x"}) == -32600
    assert _code({"jsonrpc": "2.0", "id": 2, "method": "x", "params": 3}) == -32602
    assert _code({"jsonrpc": "2.0"}) == -32600
    assert _code("text") == -32600
