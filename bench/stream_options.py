"""Research rows for bench/stream.py --options: what litellm lets us turn off or route around per chunk.

Each row is bare (no flue loop) so it compares with the "bare litellm" row of the same run:
  lt-flags       acompletion with every logging switch litellm has turned off
  lt-vllm        `hosted_vllm/` route: litellm's own HTTP handler + SSE parser, no openai SDK objects
  lt-inner-sdk   acompletion (openai/), then iterate the SDK stream under litellm's CustomStreamWrapper
  lt-inner-vllm  acompletion (hosted_vllm/), then iterate litellm's provider iterator under the wrapper
  lt-sdk-lines   acompletion (openai/), then the raw SSE lines of its response through litellm's
                 OpenAI chunk parser (ModelResponseStream objects)
  lt-dicts       the same lines through json.loads only: the floor once litellm has made the request
  lt-no-usage    acompletion without stream_options (litellm then estimates usage itself)
  flue-vllm      flue's loop, LiteLLMClient on the hosted_vllm/ route (how Groq, OpenRouter, Anthropic,
                 Ollama... stream today: litellm's own handler, no SDK)
  fast-vllm      flue's loop, the prototype on that route (its BaseModelResponseIterator branch)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

Stream = Callable[[int], Awaitable[int]]


def _messages(n: int) -> list[dict]:
    return [{"role": "user", "content": f"stream {n}"}]


def _litellm() -> Any:
    from flue_tui.model.loader import get_litellm

    return get_litellm()


async def _open(litellm: Any, model: str, url: str, n: int) -> Any:
    return await litellm.acompletion(model=model, messages=_messages(n), stream=True, api_base=url,
                                     api_key="sk-bench", num_retries=0, stream_options={"include_usage": True})


def _count(chunk: Any) -> int:
    if isinstance(chunk, dict):  # litellm's GenericStreamingChunk (e.g. for [DONE])
        return len(chunk.get("text") or "")
    choices = chunk.choices
    if choices and choices[0].delta.content:
        return len(choices[0].delta.content)
    return 0


async def _lines(wrapper: Any) -> AsyncIterator[str]:
    """The SSE data lines of the HTTP response under litellm's openai/ stream (the SDK's AsyncStream)."""
    async for line in wrapper.completion_stream.response.aiter_lines():
        if line.startswith("data:"):
            yield line[5:].strip()


async def lt_flags(url: str) -> Stream:
    litellm = _litellm()

    async def run(n: int) -> int:
        saved = (litellm.disable_streaming_logging, litellm.logging, litellm.turn_off_message_logging)
        litellm.disable_streaming_logging, litellm.logging, litellm.turn_off_message_logging = True, False, True
        try:
            stream = await _open(litellm, "openai/fake", url, n)
            return sum([_count(chunk) async for chunk in stream])
        finally:
            litellm.disable_streaming_logging, litellm.logging, litellm.turn_off_message_logging = saved

    return run


async def lt_vllm(url: str) -> Stream:
    litellm = _litellm()

    async def run(n: int) -> int:
        stream = await _open(litellm, "hosted_vllm/fake", url, n)
        return sum([_count(chunk) async for chunk in stream])

    return run


def _inner(model: str) -> Callable[[str], Awaitable[Stream]]:
    async def make(url: str) -> Stream:
        litellm = _litellm()

        async def run(n: int) -> int:
            stream = await _open(litellm, model, url, n)
            got = 0
            async for chunk in stream.completion_stream:
                got += _count(chunk)
            await stream.aclose()
            return got

        return run

    return make


async def lt_sdk_lines(url: str) -> Stream:
    litellm = _litellm()
    from litellm.llms.openai.chat.gpt_transformation import OpenAIChatCompletionStreamingHandler

    async def run(n: int) -> int:
        stream = await _open(litellm, "openai/fake", url, n)
        parser = OpenAIChatCompletionStreamingHandler(streaming_response=None, sync_stream=False)
        got = 0
        async for data in _lines(stream):
            if data != "[DONE]":
                got += _count(parser.chunk_parser(json.loads(data)))
        await stream.aclose()
        return got

    return run


async def lt_dicts(url: str) -> Stream:
    litellm = _litellm()

    async def run(n: int) -> int:
        stream = await _open(litellm, "openai/fake", url, n)
        got = 0
        async for data in _lines(stream):
            if data != "[DONE]":
                for choice in json.loads(data)["choices"]:
                    got += len(choice["delta"].get("content") or "")
        await stream.aclose()
        return got

    return run


async def lt_no_usage(url: str) -> Stream:
    litellm = _litellm()

    async def run(n: int) -> int:
        stream = await litellm.acompletion(model="openai/fake", messages=_messages(n), stream=True,
                                           api_base=url, api_key="sk-bench", num_retries=0)
        return sum([_count(chunk) async for chunk in stream])

    return run


def _flue(client_path: str, model: str) -> Callable[[str], Awaitable[Stream]]:
    async def make(url: str) -> Stream:
        _litellm()
        import importlib

        from flue_tui.agent.session import Session
        from flue_tui.core.events import TextDelta

        module, name = client_path.rsplit(".", 1)
        cls = getattr(importlib.import_module(module), name)

        async def run(n: int) -> int:
            session = Session(model=cls(model, api_base=url, api_key="sk-bench"), tools=[], system_prompt="bench")
            got = [0]
            session.subscribe(lambda e: got.__setitem__(0, got[0] + len(e.text)) if isinstance(e, TextDelta) else None)
            await session.prompt(f"stream {n}")
            return got[0]

        return run

    return make


OPTIONS: dict[str, tuple[str, Callable[[str], Awaitable[Stream]]]] = {
    "lt-flags": ("litellm, logging switches off", lt_flags),
    "lt-vllm": ("litellm hosted_vllm/ (own HTTP handler)", lt_vllm),
    "lt-inner-sdk": ("litellm openai/, inner SDK stream", _inner("openai/fake")),
    "lt-inner-vllm": ("litellm hosted_vllm/, inner iterator", _inner("hosted_vllm/fake")),
    "lt-sdk-lines": ("litellm openai/, lines -> litellm parser", lt_sdk_lines),
    "lt-dicts": ("litellm openai/, lines -> json.loads", lt_dicts),
    "lt-no-usage": ("litellm, no stream_options", lt_no_usage),
    "flue-vllm": ("flue loop, LiteLLMClient, hosted_vllm/", _flue("flue_tui.model.litellm_client.LiteLLMClient",
                                                                "hosted_vllm/fake")),
}
