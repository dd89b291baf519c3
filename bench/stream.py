"""CPU per streamed chunk: raw httpx, the openai SDK, bare litellm, flue's agent loop — one run.

    uv run python bench/stream.py [--chunks 20000] [--only httpx,openai,...] [--profile NAME]

A minimal SSE server in its own process (so its CPU is not counted) streams N chunks of 4
characters with no delay, OpenAI-style (role chunk, content chunks, finish chunk, usage chunk,
[DONE]). Each client first makes a small warm-up request (imports and first-call set-up are not
timed), then streams the N chunks; CPU is this process's (all threads) over the stream plus a
short settle for work litellm schedules after the last chunk (its success logging).
Ratios are against the openai SDK in the same run, since load on a shared box moves absolute numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WARMUP = 50
SETTLE = 0.3  # seconds after the last chunk for litellm's post-stream logging tasks
PIECE = "abcd"  # every chunk is 4 characters; consecutive ones differ (litellm aborts a stream
PIECES = ("abcd", "efgh", "ijkl", "mnop")  # after 100 identical chunks: its repetition check)

# -- the server (a child process) ---------------------------------------------------------------


def _sse(obj: dict) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def _body(n: int, created: int) -> list[bytes]:
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": created,
                "model": "fake", "system_fingerprint": None,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    contents = [_sse(chunk({"content": piece})) for piece in PIECES]
    out = [_sse(chunk({"role": "assistant", "content": ""}))] + [contents[i % len(PIECES)] for i in range(n)]
    out.append(_sse(chunk({}, "stop")))
    usage = chunk({})
    usage["choices"] = []
    usage["usage"] = {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": 10 + n}
    out += [_sse(usage), b"data: [DONE]\n\n"]
    return out


def serve() -> None:
    from aiohttp import web

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        n = int(str(body["messages"][-1]["content"]).rsplit(" ", 1)[-1])
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        parts = _body(n, int(time.time()))
        for i in range(0, len(parts), 64):  # a few chunks per write keeps the server's own CPU small
            await resp.write(b"".join(parts[i:i + 64]))
        await resp.write_eof()
        return resp

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", chat)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print(f"URL=http://127.0.0.1:{runner.addresses[0][1]}/v1", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


# -- the clients -----------------------------------------------------------------------------------
# Each returns (client factory run once, stream(n) -> number of characters received).

Stream = Callable[[int], Awaitable[int]]


def _messages(n: int) -> list[dict]:
    return [{"role": "user", "content": f"stream {n}"}]


async def httpx_client(url: str) -> Stream:
    import httpx

    client = httpx.AsyncClient(timeout=60)

    async def run(n: int) -> int:
        got = 0
        body = {"model": "fake", "messages": _messages(n), "stream": True, "stream_options": {"include_usage": True}}
        async with client.stream("POST", url + "/chat/completions", json=body,
                                 headers={"Authorization": "Bearer sk-bench"}) as resp:
            async for line in resp.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                obj = json.loads(line[6:])
                for choice in obj["choices"]:
                    got += len(choice["delta"].get("content") or "")
        return got

    return run


async def openai_client(url: str) -> Stream:
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="sk-bench", max_retries=0)

    async def run(n: int) -> int:
        got = 0
        stream = await client.chat.completions.create(model="fake", messages=_messages(n), stream=True,
                                                      stream_options={"include_usage": True})
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                got += len(chunk.choices[0].delta.content)
        return got

    return run


def _litellm() -> object:
    from flue_tui.model.loader import get_litellm

    return get_litellm()  # flue's own import (environment and flags), so every row sees the same litellm


async def litellm_client(url: str) -> Stream:
    litellm = _litellm()

    async def run(n: int) -> int:
        got = 0
        stream = await litellm.acompletion(model="openai/fake", messages=_messages(n), stream=True,
                                           api_base=url, api_key="sk-bench", num_retries=0,
                                           stream_options={"include_usage": True})
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                got += len(chunk.choices[0].delta.content)
        return got

    return run


async def flue_client(url: str) -> Stream:
    _litellm()
    from flue_tui.agent.session import Session
    from flue_tui.core.events import TextDelta
    from flue_tui.model.litellm_client import LiteLLMClient

    async def run(n: int) -> int:
        session = Session(model=LiteLLMClient("openai/fake", api_base=url, api_key="sk-bench"), tools=[],
                          system_prompt="bench")
        got = 0

        def on_event(event: object) -> None:
            nonlocal got
            if isinstance(event, TextDelta):
                got += len(event.text)

        session.subscribe(on_event)
        await session.prompt(f"stream {n}")
        return got

    return run


CLIENTS: dict[str, tuple[str, Callable[[str], Awaitable[Stream]]]] = {
    "httpx": ("raw httpx reading the SSE", httpx_client),
    "openai": ("openai SDK", openai_client),
    "litellm": ("bare litellm acompletion(stream=True)", litellm_client),
    "flue": ("flue's agent loop (LiteLLMClient)", flue_client),
}


async def measure(make: Callable[[str], Awaitable[Stream]], url: str, n: int,
                  profile: str | None = None) -> tuple[float, float]:
    run = await make(url)
    if await run(WARMUP) != WARMUP * len(PIECE):
        raise SystemExit("warm-up stream came back short")
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    cpu, wall = time.process_time(), time.perf_counter()
    got = await run(n)
    wall = time.perf_counter() - wall
    await asyncio.sleep(SETTLE)
    cpu = time.process_time() - cpu
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    if got != n * len(PIECE):
        raise SystemExit(f"stream came back short: {got} of {n * len(PIECE)} characters")
    return cpu / n * 1e6, wall


async def run_all(names: list[str], url: str, n: int, profile: str) -> dict[str, tuple[float, float]]:
    """One event loop for every client: litellm caches its HTTP clients per loop."""
    results: dict[str, tuple[float, float]] = {}
    for name in names:
        label, make = CLIENTS[name]
        prof = f"stream-{name}.prof" if profile == name else None
        results[name] = await measure(make, url, n, prof)
        print(f"  {label}: {results[name][0]:.0f} µs/chunk", file=sys.stderr, flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--only", default="", help="comma-separated: " + ",".join(CLIENTS))
    parser.add_argument("--profile", default="", help="NAME: cProfile that client's stream into stream-NAME.prof")
    parser.add_argument("--options", action="store_true", help="add the research rows (bench/stream_options.py)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    if args.options:
        from stream_options import OPTIONS

        CLIENTS.update(OPTIONS)
    names = [n for n in args.only.split(",") if n] or list(CLIENTS)
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().removeprefix("URL=")
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        results = asyncio.run(run_all(names, url, args.chunks, args.profile))
    finally:
        server.terminate()
        server.wait(10)
    base = results.get("openai", (0.0, 0.0))[0]
    print(f"{args.chunks} chunks of {len(PIECE)} characters, no delay (CPU of this process; server excluded)")
    print(f"{'client':<44} {'CPU/chunk':>10} {'stream':>8} {'x openai':>9}")
    for name, (us, wall) in results.items():
        ratio = f"{us / base:8.2f}x" if base else ""
        print(f"{CLIENTS[name][0]:<44} {us:7.0f} µs {wall:6.2f} s {ratio}")
    for name in ("flue",):
        if name in results and base:
            us = results[name][0]
            print(f"{name}: {us:.0f} µs/chunk, ratio {us / base:.2f} vs openai SDK   target <= 250 µs and <= 1.5")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
