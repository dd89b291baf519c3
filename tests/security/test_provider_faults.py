"""Item 11 of issue 13: a broken or hostile provider stream is reported as what it is.

Each test drives the real CLI (real litellm) against tests/fakellm misbehaving on purpose: a body
of only `[DONE]`, a reply cut by `finish_reason: length`, headers followed by silence, a stall in
the middle of a stream, and a stream that never ends. Every stand-in stops by itself.
"""

from __future__ import annotations

import json

from flue_tui.agent.session import LENGTH_CUT
from flue_tui.model.litellm_client import EMPTY_STREAM_MESSAGE
from tests.fakellm import Call, Turn

MODEL = ("--model", "openai/fake")


def _lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_stream_of_only_done_is_retried_and_then_an_error(fakellm, flue_main):
    fakellm.script([Turn(empty_stream=True, repeat=4)])
    out = flue_main("-p", "hello", *MODEL, "--output-format", "json")
    result = json.loads(out.stdout)
    assert out.code == 1, out.stderr
    assert result["is_error"] is True and result["subtype"] == "error_during_execution"
    assert result["result"] == f"prompt failed: {EMPTY_STREAM_MESSAGE}"
    assert result["stop_reason"] is None
    assert len(fakellm.requests) == 4  # the first try and Flue's three retries


def test_an_empty_stream_then_a_reply_succeeds_after_one_retry(fakellm, flue_main):
    fakellm.script([Turn(empty_stream=True), Turn(text="here it is")])
    out = flue_main("-p", "hello", *MODEL, "--output-format", "events")
    events = _lines(out.stdout)
    assert out.code == 0, out.stderr
    retries = [e for e in events if e["type"] == "log" and "Retrying transient" in e["message"]]
    assert [r["attributes"]["error"] for r in retries] == [EMPTY_STREAM_MESSAGE]
    assert events[-1]["result"] == "here it is" and events[-1]["stop_reason"] == "end_turn"


def test_a_length_cut_answer_is_an_error_that_keeps_its_text(fakellm, flue_main):
    fakellm.script([Turn(text="The three causes are: first, the", finish_reason="length")] * 2)
    out = flue_main("-p", "why?", *MODEL, "--output-format", "json")
    result = json.loads(out.stdout)
    assert out.code == 1, out.stderr
    assert result["is_error"] is True and result["stop_reason"] == "max_tokens"
    assert result["result"] == "The three causes are: first, the"
    text = flue_main("-p", "why?", *MODEL)
    assert text.code == 1
    assert text.stdout == "The three causes are: first, the\n"  # the partial answer is not lost
    assert f"flue: {LENGTH_CUT}" in text.stderr


def test_a_finished_answer_reports_end_turn(fakellm, flue_main):
    fakellm.script([Turn(calls=[Call("bash", {"command": "true"})]), Turn(text="done")])
    out = flue_main("-p", "go", *MODEL, "--output-format", "json")
    result = json.loads(out.stdout)
    assert out.code == 0 and result["is_error"] is False and result["stop_reason"] == "end_turn"


def test_silence_after_headers_and_mid_stream_is_retried(fakellm, flue_main, flue_env):
    # The stand-ins would stay silent for a minute; the idle timeout gives up on each after 3 s.
    fakellm.script(
        [
            Turn(text="never seen", stall=60),
            Turn(text="half of it, then", stall=60, stall_after=2),
            Turn(text="recovered"),
        ]
    )
    env = {**flue_env, "FLUE_IDLE_TIMEOUT": "3"}
    out = flue_main("-p", "hello", *MODEL, "--output-format", "events", env=env)
    events = _lines(out.stdout)
    assert out.code == 0, out.stderr
    retries = [e["attributes"] for e in events if e["type"] == "log" and "Retrying transient" in e["message"]]
    assert [r["attempt"] for r in retries] == [1, 2]
    assert all(
        r["error"] == "The provider sent nothing for 3 s: the request timed out (idle timeout)." for r in retries
    )
    assert events[-1]["result"] == "recovered" and events[-1]["is_error"] is False


def test_idle_timeout_exhausted_names_the_setting(fakellm, flue_main, flue_env):
    fakellm.script([Turn(stall=60, repeat=4)])
    env = {**flue_env, "FLUE_IDLE_TIMEOUT": "1.5"}
    out = flue_main("-p", "hello", *MODEL, env=env)
    assert out.code == 1
    assert "flue: The provider sent nothing for 1.5 s" in out.stderr and "FLUE_IDLE_TIMEOUT" in out.stderr
    assert "Traceback" not in out.stderr


def test_an_endless_stream_is_cut_at_the_reply_size_bound(fakellm, flue_main, flue_env):
    # The stand-in streams for 90 s unless the client hangs up; the run's own timeout is shorter.
    fakellm.script(Turn(text="Once upon a time", endless=90))
    env = {**flue_env, "FLUE_MAX_REPLY_CHARS": "20000"}
    out = flue_main("-p", "tell me a story", *MODEL, "--output-format", "json", env=env)
    result = json.loads(out.stdout)
    assert out.code == 1, out.stderr
    assert result["is_error"] is True and result["stop_reason"] == "max_tokens"
    # 20,000 counts text plus 8 per chunk: a few thousand words got through, then the cut.
    assert result["result"].startswith("Once upon a time") and 5000 < len(result["result"]) < 20000


def test_an_endless_tool_call_is_cut_and_never_runs(fakellm, flue_main, flue_env, tmp_path):
    # Arguments past the bound: the call is refused as truncated (Flue's length text), never run.
    huge = {"path": "out.txt", "content": "x" * 50000}
    fakellm.script([Turn(calls=[Call("write", huge)]), Turn(text="ok")])
    env = {**flue_env, "FLUE_MAX_REPLY_CHARS": "20000"}
    out = flue_main("-p", "write it", *MODEL, "--output-format", "json", env=env)
    assert out.code == 0, out.stderr
    assert not (tmp_path / "out.txt").exists()
    tool_results = [m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_results and "hit the output token limit" in tool_results[0]


async def test_a_sub_agent_cut_at_the_limit_hands_back_its_text_and_says_so(fakellm, tmp_path):
    # In-process: the parent model must see both the child's partial answer and that it is cut.
    from flue_tui.config.settings import Settings
    from flue_tui.runtime.wiring import Runtime

    fakellm.script(
        [
            Turn(calls=[Call("task", {"prompt": "dig in", "agent": "flue-general"})], match="go"),
            Turn(text="Found two of the", finish_reason="length", match="dig in"),
            Turn(text="ok", match="go"),
        ]
    )
    settings = Settings.from_env(model="openai/fake", cwd=str(tmp_path), api_base=fakellm.base_url, retry_base_ms=5)
    session, _ = Runtime(settings).new_session()
    result = await session.prompt("go")
    assert result.is_error is False and result.text == "ok" and result.stop_reason == "end_turn"
    [tool] = [m for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"]
    assert tool["content"] == f"Found two of the\n\n{LENGTH_CUT}"


async def test_a_long_stream_does_not_pile_up_chunk_objects(fakellm):
    # litellm's wrapper keeps every chunk (~4 KB each): 58,000 chunks grew a run by 280 MB.
    import gc

    from flue_tui.model.litellm_client import LiteLLMClient
    from flue_tui.model.loader import get_litellm

    chunk_type = get_litellm().types.utils.ModelResponseStream
    fakellm.script(Turn(text_tokens=4000))
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
    seen, alive = 0, None
    async for _item in client.stream_turn([{"role": "user", "content": "go"}], []):
        seen += 1
        if seen == 3500:
            alive = sum(isinstance(o, chunk_type) for o in gc.get_objects())
    assert seen > 3500 and alive is not None and alive < 1000
