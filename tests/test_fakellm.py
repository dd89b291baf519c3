"""The fake LLM server, checked through the real litellm over real HTTP.

If these pass, tests built on `fakellm` exercise the same chunk shapes and
exception mapping the agent sees from real OpenAI-compatible providers.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.fakellm import CONTEXT_OVERFLOW_MESSAGE, Call, FakeLLM, Turn, turn_from_dict
from tests.fakellm import fixture as _fixture

# Also registered by tests/conftest.py (pytest_plugins); this keeps the file
# runnable on its own and is harmless when both are present.
fakellm = _fixture.fakellm

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} tool",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": True},
        },
    }
    for name in ("read", "grep")
]


@pytest.fixture(scope="session")
def litellm() -> Any:
    # Must be set before import: no network fetches, no .env loading.
    os.environ["LITELLM_MODE"] = "PRODUCTION"
    os.environ["LITELLM_OFFLINE_MODE"] = "true"
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm

    litellm.suppress_debug_info = True
    # Warm up: the first streaming call lazily imports ~0.5 s of litellm, which
    # would otherwise be billed to whichever test happens to run first.
    with FakeLLM([Turn(text="warm")]) as llm:

        async def warm() -> None:
            async for _ in await complete(litellm, llm):
                pass

        asyncio.run(warm())
    return litellm


async def complete(litellm: Any, llm: FakeLLM, prompt: str = "hi", **kw: Any) -> Any:
    kw.setdefault("stream", True)
    if kw["stream"]:
        kw.setdefault("stream_options", {"include_usage": True})
    return await litellm.acompletion(
        model="openai/fake",
        api_base=llm.base_url,
        api_key="sk-test",
        messages=[{"role": "user", "content": prompt}],
        tools=TOOLS,
        num_retries=0,
        **kw,
    )


async def collect(resp: Any) -> list[Any]:
    return [chunk async for chunk in resp]


def contents(chunks: list[Any]) -> list[str]:
    return [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]


def finish_reason(chunks: list[Any]) -> str | None:
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    return reasons[-1] if reasons else None


def assemble_by_index(chunks: list[Any]) -> dict[int, dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for c in chunks:
        if not c.choices:
            continue
        for tc in c.choices[0].delta.tool_calls or []:
            cur = calls.setdefault(tc.index, {"id": None, "name": "", "args": []})
            cur["id"] = cur["id"] or tc.id
            if tc.function is not None:
                cur["name"] = cur["name"] or (tc.function.name or "")
                if tc.function.arguments:
                    cur["args"].append(tc.function.arguments)
    return calls


async def test_text_streams_in_several_deltas(litellm: Any, fakellm: FakeLLM) -> None:
    text = "Hello! This reply is long enough to be split up."
    fakellm.script([Turn(text=text)])
    chunks = await collect(await complete(litellm, fakellm))
    pieces = contents(chunks)
    assert len(pieces) >= 3
    assert "".join(pieces) == text
    assert finish_reason(chunks) == "stop"
    assert fakellm.remaining == 0


async def test_two_tool_calls_with_split_arguments(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script(
        [
            Turn(
                calls=[
                    Call("read", {"path": "a.txt"}),
                    Call("grep", {"pattern": "needle", "path": "src"}, id="call_custom"),
                ]
            )
        ]
    )
    chunks = await collect(await complete(litellm, fakellm))
    calls = assemble_by_index(chunks)
    assert sorted(calls) == [0, 1]
    assert calls[0]["name"] == "read" and calls[0]["id"].startswith("call_")
    assert calls[1]["name"] == "grep" and calls[1]["id"] == "call_custom"
    assert json.loads("".join(calls[0]["args"])) == {"path": "a.txt"}
    assert json.loads("".join(calls[1]["args"])) == {"pattern": "needle", "path": "src"}
    # Arguments really arrive in pieces, as with real providers.
    assert len(calls[0]["args"]) >= 2 and len(calls[1]["args"]) >= 2
    assert finish_reason(chunks) == "tool_calls"


async def test_auto_call_ids_unique_across_turns(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(calls=[Call("read", {"path": "x"})], repeat=2)])
    ids = []
    for _ in range(2):
        calls = assemble_by_index(await collect(await complete(litellm, fakellm)))
        ids.append(calls[0]["id"])
    assert ids[0] != ids[1]


async def test_invalid_json_arguments_sent_raw(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(calls=[Call("read", '{"path": "a.t')])])
    calls = assemble_by_index(await collect(await complete(litellm, fakellm)))
    assert "".join(calls[0]["args"]) == '{"path": "a.t'


async def test_calls_without_index_can_be_keyed_by_id(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(omit_index=True, calls=[Call("read", {"a": 1}), Call("grep", {"b": 2})])])
    chunks = await collect(await complete(litellm, fakellm))
    # Key by id: a delta with a new id starts a call, id-less deltas continue the last one.
    calls: list[dict[str, Any]] = []
    for c in chunks:
        for tc in (c.choices[0].delta.tool_calls or []) if c.choices else []:
            if tc.id and (not calls or calls[-1]["id"] != tc.id):
                calls.append({"id": tc.id, "name": tc.function.name, "args": ""})
            calls[-1]["args"] += tc.function.arguments or ""
    assert [c["name"] for c in calls] == ["read", "grep"]
    assert [json.loads(c["args"]) for c in calls] == [{"a": 1}, {"b": 2}]
    assert calls[0]["id"] != calls[1]["id"]


async def test_usage_chunk(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(text="ok", usage=(42, 7, 30))])
    chunks = await collect(await complete(litellm, fakellm))
    usage = [c.usage for c in chunks if getattr(c, "usage", None)]
    assert usage, "no usage chunk"
    u = usage[-1]
    assert (u.prompt_tokens, u.completion_tokens, u.total_tokens) == (42, 7, 49)
    assert u.prompt_tokens_details.cached_tokens == 30


async def test_no_usage_chunk_unless_requested(fakellm: FakeLLM) -> None:
    # Checked on the wire: litellm itself may synthesize usage when none is sent.
    fakellm.script([Turn(text="ok")])
    body = json.dumps({"model": "m", "stream": True, "messages": []}).encode()
    req = urllib.request.Request(fakellm.base_url + "/chat/completions", data=body)
    raw = await asyncio.to_thread(lambda: urllib.request.urlopen(req, timeout=60).read().decode())
    assert '"usage"' not in raw
    assert raw.endswith("data: [DONE]\n\n")


async def test_reasoning_deltas_come_first(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(reasoning="Let me think about this carefully.", text="Answer.")])
    chunks = await collect(await complete(litellm, fakellm))
    kinds = []
    reasoning = []
    for c in chunks:
        if not c.choices:
            continue
        d = c.choices[0].delta
        if getattr(d, "reasoning_content", None):
            kinds.append("r")
            reasoning.append(d.reasoning_content)
        if d.content:
            kinds.append("t")
    assert "".join(reasoning) == "Let me think about this carefully."
    assert len(reasoning) >= 3
    assert kinds.index("t") > max(i for i, k in enumerate(kinds) if k == "r")


async def test_finish_reason_length(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(text="truncated outp", finish_reason="length")])
    chunks = await collect(await complete(litellm, fakellm))
    assert finish_reason(chunks) == "length"


async def test_rate_limit_raises(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(status=429, error_message="Rate limit reached")])
    with pytest.raises(litellm.RateLimitError):
        await complete(litellm, fakellm)


@pytest.mark.parametrize("stream", [True, False])
async def test_context_overflow_raises(litellm: Any, fakellm: FakeLLM, stream: bool) -> None:
    fakellm.script([Turn(status=400, error_message=CONTEXT_OVERFLOW_MESSAGE)])
    with pytest.raises(litellm.ContextWindowExceededError):
        await complete(litellm, fakellm, stream=stream)


async def test_context_overflow_helper(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn.context_overflow()])
    with pytest.raises(litellm.ContextWindowExceededError):
        await complete(litellm, fakellm)


async def test_server_errors_repeat_then_succeed(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(status=500, repeat=2), Turn(text="finally")])
    for _ in range(2):
        with pytest.raises(litellm.InternalServerError):
            await complete(litellm, fakellm)
    assert fakellm.remaining == 1
    assert "".join(contents(await collect(await complete(litellm, fakellm)))) == "finally"
    assert fakellm.remaining == 0


async def test_mid_stream_disconnect_raises(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(text="abcdefgh" * 10, disconnect_after=3)])
    resp = await complete(litellm, fakellm)
    got: list[str] = []
    with pytest.raises(Exception):  # noqa: B017 - any transport error will do
        async for c in resp:
            if c.choices and c.choices[0].delta.content:
                got.append(c.choices[0].delta.content)
    # The chunks before the reset were delivered (role chunk + 2 text deltas).
    assert got == ["abcdefgh", "abcdefgh"]


async def test_client_abort_is_seen_by_server(litellm: Any, fakellm: FakeLLM) -> None:
    # Held after a few chunks until the client has gone, so the stream cannot end first on a slow box.
    gone = threading.Event()
    fakellm.script([Turn(text="x" * 400, chunk_delay=0.02, stall_after=6, hold=gone)])
    resp = await complete(litellm, fakellm)
    n = 0
    async for _ in resp:
        n += 1
        if n == 3:
            break
    await resp.aclose()
    gone.set()
    deadline = time.monotonic() + 60  # generous: returns as soon as the server has seen it
    while fakellm.disconnects == 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert fakellm.disconnects == 1


async def test_match_by_first_user_message_and_barrier(litellm: Any, fakellm: FakeLLM) -> None:
    # Scripted in the opposite order to the requests: matching, not order, decides.
    fakellm.script(
        [
            Turn(text="answer for B", match="task B", barrier="both"),
            Turn(text="answer for A", match="task A", barrier="both"),
        ]
    )

    async def run(prompt: str) -> str:
        return "".join(contents(await collect(await complete(litellm, fakellm, prompt))))

    a = asyncio.create_task(run("please do task A"))
    # A alone is held at the barrier: it cannot finish before B arrives.
    await asyncio.to_thread(fakellm.wait_for_requests, 1)
    await asyncio.sleep(0.2)
    assert not a.done()
    b = asyncio.create_task(run("please do task B"))
    assert await asyncio.wait_for(asyncio.gather(a, b), 60) == ["answer for A", "answer for B"]


async def test_match_callable(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script(
        [
            Turn(text="no tools", match=lambda body: not body.get("tools")),
            Turn(text="with tools", match=lambda body: bool(body.get("tools"))),
        ]
    )
    assert "".join(contents(await collect(await complete(litellm, fakellm)))) == "with tools"
    assert fakellm.remaining == 1


async def test_unmatched_request_is_400(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(text="only for X", match="X")])
    with pytest.raises(litellm.BadRequestError, match="no scripted turn matches"):
        await complete(litellm, fakellm, "something else")
    assert fakellm.unmatched == 1
    assert fakellm.remaining == 1
    assert len(fakellm.requests) == 1


async def test_non_streaming(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script(
        [
            Turn(text="plain answer", reasoning="hmm", usage=(12, 3)),
            Turn(calls=[Call("read", {"path": "b.txt"})]),
        ]
    )
    r = await complete(litellm, fakellm, stream=False)
    msg = r.choices[0].message
    assert msg.content == "plain answer"
    assert msg.reasoning_content == "hmm"
    assert r.choices[0].finish_reason == "stop"
    assert (r.usage.prompt_tokens, r.usage.completion_tokens) == (12, 3)

    r = await complete(litellm, fakellm, stream=False)
    (tc,) = r.choices[0].message.tool_calls
    assert tc.function.name == "read"
    assert json.loads(tc.function.arguments) == {"path": "b.txt"}
    assert r.choices[0].finish_reason == "tool_calls"


async def test_requests_are_recorded(litellm: Any, fakellm: FakeLLM) -> None:
    fakellm.script([Turn(text="one"), Turn(text="two")])
    await collect(await complete(litellm, fakellm, "first"))
    await collect(await complete(litellm, fakellm, "second"))
    reqs = fakellm.wait_for_requests(2)
    assert [r["messages"][0]["content"] for r in reqs] == ["first", "second"]
    assert reqs[0]["model"] == "fake"
    assert reqs[0]["stream"] is True
    assert reqs[0]["stream_options"] == {"include_usage": True}
    assert [t["function"]["name"] for t in reqs[0]["tools"]] == ["read", "grep"]
    # A snapshot: later requests do not appear in it.
    reqs.clear()
    assert len(fakellm.requests) == 2


def test_wait_for_requests_times_out() -> None:
    with FakeLLM() as llm, pytest.raises(TimeoutError):
        llm.wait_for_requests(1, timeout=0.05)


def post_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode())
    return json.loads(urllib.request.urlopen(req, timeout=60).read())


def test_barrier_times_out_and_responds_anyway(fakellm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.fakellm.server as server

    monkeypatch.setattr(server, "BARRIER_TIMEOUT", 0.1)
    fakellm.script([Turn(text="a", barrier="pair"), Turn(text="b", barrier="pair")])
    t0 = time.monotonic()
    r = post_json(fakellm.base_url, {"model": "m", "messages": []})
    assert r["choices"][0]["message"]["content"] == "a"
    assert 0.1 <= time.monotonic() - t0 < 60  # the patched 0.1 s, not the default 120 s (generous)


def test_models_endpoint(fakellm: FakeLLM) -> None:
    data = json.loads(urllib.request.urlopen(fakellm.base_url + "/models", timeout=60).read())
    assert data["data"][0]["id"] == "fake"


def test_turn_from_dict() -> None:
    t = turn_from_dict(
        {
            "text": "hi",
            "calls": [{"name": "read", "arguments": {"path": "a"}}],
            "usage": [3, 4],
            "match": "task",
            "text_tokens": 5,
        }
    )
    assert t.calls == [Call("read", {"path": "a"})]
    assert t.usage == (3, 4)
    assert t.full_text().startswith("hi") and len(t.full_text().split()) == 6
    with pytest.raises(ValueError, match="unknown turn field"):
        turn_from_dict({"txt": "typo"})


def test_standalone_loop_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # In-process (a thread) rather than `python -m tests.fakellm`: a subprocess
    # costs ~1 s of imports (aiohttp). main() is the same code the entry point runs.
    from tests.fakellm.__main__ import main

    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"text": "first"},
                {"text": "then", "text_tokens": 5, "tokens_per_second": 1000},
            ]
        )
    )
    stop = threading.Event()
    server = threading.Thread(target=main, args=(["--port", "0", "--script", str(script), "--loop"], stop))
    server.start()
    try:
        out = ""
        deadline = time.monotonic() + 60  # generous: returns as soon as the line is out
        while "\n" not in out and time.monotonic() < deadline:
            time.sleep(0.01)
            out += capsys.readouterr().out
        line = out.splitlines()[0]
        assert line.startswith("FAKELLM_URL=http://127.0.0.1:")
        url = line.split("=", 1)[1]

        def ask() -> dict[str, Any]:
            body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]})
            req = urllib.request.Request(url + "/chat/completions", data=body.encode())
            return json.loads(urllib.request.urlopen(req, timeout=60).read())

        texts = [ask()["choices"][0]["message"]["content"] for _ in range(3)]
        assert texts[0] == "first" and texts[2] == "first"  # replayed
        assert texts[1].startswith("then ") and len(texts[1].split()) == 6
    finally:
        stop.set()
        server.join(timeout=60)
    assert not server.is_alive()
