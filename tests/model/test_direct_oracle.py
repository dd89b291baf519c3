"""litellm is the oracle of the direct path: the same conversations (tools, thinking, caching marks,
cut replies, errors, usage) go through both paths to the strict stand-ins, and both must send the
same request bodies and fold the same events, or fail with the same sentence."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from flue_tui.model.base import ModelError, TurnResponse, UsageChunk
from flue_tui.model.direct_client import DirectClient
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.model.route import route
from flue_tui.model.turn_params import THINKING_BUDGETS
from flue_tui.tools import builtin_tools
from tests.fakellm import Call, Turn
from tests.model.conftest import SONNET

pytestmark = pytest.mark.usefixtures("either_side")  # in process and through the relay

GPT = "openai/gpt-4.1"


def _png_url() -> str:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buf, "PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _image(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": _png_url()}}]


def _tools() -> list[dict[str, Any]]:
    from flue_tui.sandbox.local import LocalSandbox

    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in builtin_tools(LocalSandbox("/tmp"))
    ]


def _call(i: str, name: str = "read", args: str = '{"path": "a.txt"}') -> dict[str, Any]:
    return {"id": i, "type": "function", "function": {"name": name, "arguments": args}}


CONVERSATIONS: dict[str, list[dict[str, Any]]] = {
    "plain": [{"role": "system", "content": "You are flue."}, {"role": "user", "content": "hi"}],
    "tools": [
        {"role": "system", "content": "You are flue."},
        {"role": "user", "content": "read two files"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [_call("toolu_1"), _call("toolu_2")]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "one"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": "two"},
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("toolu_3", "bash", '{"command": "ls"}')]},
        {"role": "tool", "tool_call_id": "toolu_3", "content": "a.txt"},
    ],
    "empty_assistant": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "again"},
        {"role": "user", "content": "twice"},
    ],
    "image": [
        {"role": "system", "content": "You are flue."},
        {"role": "user", "content": _image("what is this?")},
        {"role": "assistant", "content": "A red square."},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": _png_url()}}]},
        {"role": "user", "content": _image("and twice")},
    ],
    "image_marked": [  # a cache breakpoint on an image part (caching.py marks a message's last block)
        {"role": "user", "content": [*_image("what?")[:1], {**_image("")[1], "cache_control": {"type": "ephemeral"}}]},
    ],
    "unicode": [
        {"role": "system", "content": "Ünïcode ✓ \u2028"},
        {"role": "user", "content": "日本語 \U0001f600 \x00"},
    ],
}


def clients(model: str, base: str, **kw: Any) -> tuple[LiteLLMClient, DirectClient]:
    base_kw = {"api_base": base} if model.startswith("openai/") else {}
    oracle = LiteLLMClient(model, api_key="sk-test", **base_kw, **kw)
    path = route(
        model, base_kw.get("api_base"), environ={"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_API_BASE": base}
    )
    assert path.wire is not None
    direct = DirectClient(model, route=path, api_key="sk-test", **base_kw, **kw)
    return oracle, direct


async def _items(client: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]], **kw: Any) -> list[Any]:
    out: list[Any] = []
    try:
        async for item in client.stream_turn(messages, tools, **kw):
            out.append(item)
    except ModelError as exc:
        out.append(("error", exc.message, exc.kind, exc.retryable, exc.status, exc.hint))
    return out


def _normal(items: list[Any]) -> list[Any]:
    """Tool call ids the client makes up for a server that sent none differ by design."""
    return [
        (
            type(i).__name__,
            i.text,
            i.thinking,
            [(c.name, c.arguments, c.raw_arguments) for c in i.tool_calls],
            i.finish_reason,
            i.usage,
            i.thinking_blocks,
        )
        if isinstance(i, TurnResponse)
        else i
        for i in items
    ]


def both(server: Any, model: str, turn: Turn, messages: list[dict[str, Any]], tools=(), *, kw=None, **client_kw):
    """(oracle items, direct items, oracle body, direct body, oracle headers, direct headers)."""
    server.script([turn, turn])
    oracle, direct = clients(model, server.base_url, **client_kw)
    first = asyncio.run(_items(oracle, messages, list(tools), **(kw or {})))
    second = asyncio.run(_items(direct, messages, list(tools), **(kw or {})))
    requests = server.requests
    assert len(requests) == 2, requests
    return _normal(first), _normal(second), requests[0], requests[1], server.headers[0], server.headers[1]


@pytest.fixture
def anthropic_base(fakeanthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_BASE", fakeanthropic.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    return fakeanthropic


def servers(request: pytest.FixtureRequest, wire: str) -> tuple[Any, str]:
    if wire == "anthropic":
        return request.getfixturevalue("anthropic_base"), SONNET
    return request.getfixturevalue("fakellm"), GPT


WIRES = ["openai", "anthropic"]
TURNS = {
    "text": Turn(text="The answer is 42."),
    "reasoning": Turn(reasoning="Think it over.", text="Done."),
    "calls": Turn(
        text="Let me look.", calls=[Call("read", {"path": "a.txt"}, id="c1"), Call("grep", {"pattern": "x"}, id="c2")]
    ),
    "cached_usage": Turn(text="hi", usage=(52000, 400, 50000)),
    "cache_write_usage": Turn(text="hi", usage=(2000, 400, 50000, 1000)),
    "length": Turn(text="cut sho", finish_reason="length"),
}


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("conversation", list(CONVERSATIONS))
@pytest.mark.parametrize("cache", [True, False])
def test_same_request_body(request, wire: str, conversation: str, cache: bool) -> None:
    server, model = servers(request, wire)
    messages = CONVERSATIONS[conversation]
    tools = _tools() if conversation == "tools" else []
    a, b, body_a, body_b, *_ = both(server, model, Turn(text="ok"), messages, tools, prompt_cache=cache)
    assert body_b == body_a
    assert b == a


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("name", list(TURNS))
def test_same_folded_events(request, wire: str, name: str) -> None:
    if name == "cache_write_usage" and wire == "openai":
        pytest.skip("OpenAI reports no cache writes (and 50,000 cached of 2,000 is no usage it sends)")
    server, model = servers(request, wire)
    a, b, body_a, body_b, *_ = both(server, model, TURNS[name], CONVERSATIONS["plain"], _tools())
    assert body_b == body_a
    assert b == a


@pytest.mark.parametrize("effort", ["low", "high"])
def test_same_thinking_request_and_signed_blocks(anthropic_base, effort: str) -> None:
    history = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "think"},
    ]
    a, b, body_a, body_b, head_a, head_b = both(
        anthropic_base, SONNET, Turn(reasoning="Deep thought.", text="42"), history, _tools(), effort=effort
    )
    assert body_b == body_a and body_a["thinking"]["budget_tokens"] == THINKING_BUDGETS[effort]
    assert b == a
    assert head_b.get("anthropic-beta") == head_a.get("anthropic-beta")
    assert head_b["anthropic-version"] == head_a["anthropic-version"]
    assert any(isinstance(i, tuple) and i[0] == "TurnResponse" and i[6] for i in b)  # the signed block came back


def test_a_summary_request_is_the_same(anthropic_base) -> None:
    a, b, body_a, body_b, *_ = both(
        anthropic_base, SONNET, Turn(text="sum"), CONVERSATIONS["plain"], kw={"max_tokens": 500}
    )
    assert body_b == body_a and b == a


ERRORS = {
    "auth": Turn(status=401, error_message="invalid x-api-key"),
    "unknown_model": Turn(status=404, error_message="model: nope"),
    "rate_limit": Turn.rate_limit(),
    "overflow": Turn.context_overflow(),
    "bad_request": Turn(status=400, error_message="messages: roles must alternate"),
    "server": Turn(status=500, error_message="boom"),
    "overloaded": Turn(status=529, error_message="Overloaded", error_type="overloaded_error"),
    "cut": Turn(text="half a reply that goes on", disconnect_after=3),
    "empty": Turn(empty_stream=True),
}


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("name", list(ERRORS))
def test_same_failure_sentence(request, wire: str, name: str) -> None:
    if name == "empty" and wire == "anthropic":
        pytest.skip("the Anthropic stand-in has no empty stream")
    server, model = servers(request, wire)
    a, b, *_ = both(server, model, ERRORS[name], CONVERSATIONS["plain"])
    assert isinstance(a[-1], tuple) and a[-1][0] == "error"
    assert b == a


def test_thinking_budgets_are_litellms() -> None:
    from flue_tui.model.loader import get_litellm

    constants = get_litellm().constants
    for effort, budget in THINKING_BUDGETS.items():
        assert getattr(constants, f"DEFAULT_REASONING_EFFORT_{effort.upper()}_THINKING_BUDGET") == budget


def test_bodies_are_json_the_oracle_reads(fakellm) -> None:
    """A control: the direct body is UTF-8 JSON, not ASCII-escaped past what json.dumps needs."""
    direct = clients(GPT, fakellm.base_url)[1]
    _, payload = direct._request(CONVERSATIONS["unicode"], [], None)
    assert json.loads(payload)["messages"][1]["content"].startswith("日本語")


def test_a_model_the_map_does_not_know_gets_the_same_request(anthropic_base, fakellm) -> None:
    for server, model in ((anthropic_base, "anthropic/claude-unknown-9"), (fakellm, "openai/my-local-llama")):
        a, b, body_a, body_b, *_ = both(server, model, Turn(text="ok"), CONVERSATIONS["plain"], _tools())
        assert body_b == body_a
        if model.startswith("anthropic/"):
            # litellm makes up a price-less entry for an unknown claude-* name and calls it $0; the
            # direct path says the cost is unknown (flue's rule: never a made-up $0).
            assert [i for i in a if not isinstance(i, UsageChunk)][:-1] == [
                i for i in b if not isinstance(i, UsageChunk)
            ][:-1]
            assert all(not i.usage.priced for i in b if isinstance(i, UsageChunk))
        else:
            assert b == a


@pytest.mark.parametrize("model", ["openai/my-local-llama", GPT])
def test_effort_on_openai_style_models_is_sent_alike(fakellm, model: str) -> None:
    a, b, body_a, body_b, *_ = both(fakellm, model, Turn(text="ok"), CONVERSATIONS["plain"], effort="high")
    assert body_b == body_a and b == a
