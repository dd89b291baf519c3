"""More of a hostile provider on the direct path: a redirect (the key must not follow it), a flood
of blank lines, usage numbers no tokenizer produces, a gzip bomb, a tool call whose arguments are
not JSON (read by the model exactly as on the litellm path)."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from flue_tui.model.base import ModelError, TurnResponse
from flue_tui.model.sse import MAX_IDLE_LINES
from tests.fakellm import Call, Turn
from tests.model.test_direct_hostile import END, Script, client, event, hostile, one_sentence, outcome  # noqa: F401

pytestmark = pytest.mark.usefixtures("either_side")  # in process and through the relay


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_stays_home(hostile, status: int) -> None:  # noqa: F811
    base, script = hostile
    script.status, script.content_type = status, "text/html"
    script.headers = {"Location": base.replace("/v1", "/stolen")}
    result = outcome(client(base))
    # Before, a redirect read as an empty stream ("ended without a reply"): now it names itself.
    stolen = base.replace("/v1", "/stolen")
    assert (
        one_sentence(result)
        == f"OpenAI returned {status}: a redirect to {stolen}, not followed (set the API base to the address it names)"
    )
    assert isinstance(result, ModelError) and not result.retryable
    assert len(script.seen) == 1  # one request, to the configured address only


def test_a_flood_of_blank_lines_is_one_sentence(hostile) -> None:  # noqa: F811
    # Before, blank lines were not counted as lines without an event: a stream of them kept the
    # reader busy until the idle timeout (two minutes of CPU), never a "no event" sentence.
    base, script = hostile
    script.pieces = lambda: (b"\n" * 100_000 for _ in range(MAX_IDLE_LINES // 100_000 + 2))
    assert "without an event" in one_sentence(outcome(client(base)))


def _usage_body(wire: str, usage: dict[str, Any]) -> bytes:
    if wire == "openai":
        return (
            event({"content": "hi"}, "stop")
            + b"data: "
            + json.dumps({"choices": [], "usage": usage}).encode()
            + b"\n\n"
        )
    events = [
        {"type": "message_start", "message": {"usage": usage}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        {"type": "message_stop"},
    ]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


HUGE = 10**400  # past a float: int * price overflows


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
@pytest.mark.parametrize("value", [-5_000, HUGE, 1e308, "12", True, None, [1]])
def test_usage_numbers_no_tokenizer_produces(hostile, wire: str, value: Any) -> None:  # noqa: F811
    base, script = hostile
    keys = ("prompt_tokens", "completion_tokens") if wire == "openai" else ("input_tokens", "output_tokens")
    script.body = _usage_body(wire, dict.fromkeys(keys, value) | {"cache_read_input_tokens": value})
    done = outcome(client(base, wire))
    assert isinstance(done, TurnResponse), done
    u = done.usage
    assert min(u.input, u.output, u.cache_read, u.cache_write) >= 0
    assert 0 <= u.cost < float("inf"), u


def test_a_gzip_bomb_is_bounded(hostile) -> None:  # noqa: F811
    base, script = hostile
    script.headers = {"Content-Encoding": "gzip"}
    script.body = gzip.compress(b"data: " + b"x" * (200 << 20), compresslevel=9)  # 200 MiB in ~200 KB
    assert "over 4 MiB" in one_sentence(outcome(client(base)))


@pytest.mark.parametrize("transport", ["auto", "litellm"])
def test_tool_arguments_that_are_not_json_read_the_same_on_both_paths(fakellm, flue_main, flue_env, transport) -> None:
    fakellm.script([Turn(calls=[Call("read", '{"path": "a.txt', id="r1")]), Turn(text="done")])
    out = flue_main("-p", "go", "--model", "openai/fake", env={**flue_env, "FLUE_TRANSPORT": transport})
    assert out.code == 0, out.stderr
    [tool] = [m for m in fakellm.requests[1]["messages"] if m["role"] == "tool"]
    assert tool["content"].startswith('Validation failed for tool "read"'), tool["content"]


def _anthropic(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


@pytest.mark.parametrize("kind", ["signature", "redacted"])
def test_endless_signatures_or_redacted_blocks_are_cut_at_the_reply_bound(hostile, kind: str) -> None:  # noqa: F811
    # Before, a signature or a redacted block cost one chunk (8) against the bound whatever its
    # size, and each began a new block: 250,000 events of 4 MiB held in memory.
    base, script = hostile
    big = "s" * 10_000
    if kind == "signature":
        start = {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}
        step = {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": big}}
    else:
        start = {"type": "ping"}
        step = {"type": "content_block_start", "index": 0, "content_block": {"type": "redacted_thinking", "data": big}}
    opening = {"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 1}}}
    script.body = _anthropic(opening, start, *[step] * 200)
    done = outcome(client(base, "anthropic", max_reply_chars=50_000))
    assert isinstance(done, TurnResponse) and done.finish_reason == "length", done
    held = sum(len(b.get("signature", "")) + len(b.get("data", "")) for b in done.thinking_blocks)
    assert held <= 60_000, held


def test_endless_tool_call_ids_are_cut_at_the_reply_bound(hostile) -> None:  # noqa: F811
    # Before, an id was not counted: each new 10 KB id began a new call at the cost of one chunk.
    base, script = hostile
    calls = (
        event({"tool_calls": [{"index": i, "id": f"{i}" + "i" * 10_000, "function": {"name": "", "arguments": ""}}]})
        for i in range(200)
    )
    script.body = b"".join(calls)
    done = outcome(client(base, max_reply_chars=50_000))
    assert isinstance(done, TurnResponse) and done.finish_reason == "length", done
    assert sum(len(c.id) for c in done.tool_calls) <= 60_000


@pytest.mark.parametrize("bad", ["\n", "\r\nX-Injected: 1", "\x00"])
def test_a_key_http_cannot_carry_is_refused_before_sending_and_never_shown(hostile, bad: str) -> None:  # noqa: F811
    """A key pasted with a line break (or worse): the request never leaves, and the sentence says
    why without the key (h11's own message quotes the header). It read as the provider cutting
    the connection, in process and through the relay."""
    from flue_tui.model.clients import client_for
    from flue_tui.model.direct_client import LOCAL_REFUSAL

    base, script = hostile
    key = "sk-secret-0123456789" + bad + "abcdef"
    result = outcome(client_for("openai/gpt-4.1", api_base=base, api_key=key))
    assert isinstance(result, ModelError) and result.message == LOCAL_REFUSAL
    assert "sk-secret" not in result.message + (result.hint or "") and not result.retryable
    assert script.seen == []  # nothing reached the provider
