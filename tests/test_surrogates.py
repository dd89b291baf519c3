"""A reply whose JSON splits one character's UTF-16 halves over two stream events, or holds a half
with no partner: every route joins the halves, makes a lone one U+FFFD, and the reply is printed
(text, json, stream-json), saved (`sessions show`, a resumed run's history) and its tool runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakellm import Call, Turn

# "\ud83d" + "\ude00" is 😀 sent as two events; "\ud800" has no partner; the last delta ends in a
# high half the stream never completes.
DELTAS = ["Smile \ud83d", "\ude00, lone \ud800 and", " dangling \ud83d"]
SHOWN = "Smile 😀, lone \ufffd and dangling \ufffd"


def _result(out: str) -> dict:
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_split_and_lone_halves_are_printed_and_saved(fakellm, flue_main, fmt: str) -> None:
    fakellm.script([Turn(text_deltas=DELTAS), Turn(text="again")])
    extra = ["--verbose"] if fmt == "stream-json" else []
    out = flue_main("-p", "hi", "--model", "openai/fake", "--output-format", fmt, *extra)
    assert out.code == 0, out.stderr
    if fmt == "text":
        assert out.stdout == SHOWN + "\n"
        listed = json.loads(flue_main("sessions", "list", "--json").stdout)
        sid = listed[0]["id"]
    else:
        result = _result(out.stdout)
        assert result["result"] == SHOWN and result["is_error"] is False
        sid = result["session_id"]
    if fmt == "stream-json":
        messages = [json.loads(line) for line in out.stdout.splitlines()]
        said = [b["text"] for m in messages if m["type"] == "assistant" for b in m["message"]["content"]]
        assert said == [SHOWN]
    shown = flue_main("sessions", "show", sid)
    assert shown.code == 0 and SHOWN in shown.stdout, shown.stderr
    again = flue_main("-p", "more", "--model", "openai/fake", "--resume", sid)
    assert again.code == 0 and again.stdout == "again\n", again.stderr
    history = fakellm.requests[-1]["messages"]
    assert [m["content"] for m in history if m["role"] == "assistant"] == [SHOWN]


def _env(route: str, flue_env: dict[str, str], fakeanthropic, fakeollama) -> tuple[str, dict[str, str]]:
    env = dict(flue_env)
    if route.startswith("anthropic"):
        env = {k: v for k, v in env.items() if not k.startswith("OPENAI_")}
        env.update({"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_API_BASE": fakeanthropic.base_url})
    if route.endswith("litellm"):
        env["FLUE_TRANSPORT"] = "litellm"
    if route == "ollama":
        env["OLLAMA_HOST"] = fakeollama.base_url
        return "ollama_chat/qwen3:8b", env
    return ("anthropic/claude-sonnet-4-5" if route.startswith("anthropic") else "openai/fake"), env


@pytest.mark.parametrize("route", ["openai", "openai-litellm", "anthropic", "anthropic-litellm", "ollama"])
def test_every_route_joins_text_thinking_and_tool_arguments(
    route: str, fakellm, fakeanthropic, fakeollama, flue_main, flue_env, tmp_path: Path
) -> None:
    # Arguments as text: raw halves in the JSON string (json.dumps of the event escapes them, and
    # the stand-in splits the arguments over several deltas), and a `\ud800` escape inside it.
    arguments: str | dict = '{"path": "f.txt", "content": "\ud83d\ude00 \\ud83d\\ude01 \\ud800 \ud800"}'
    if route == "ollama":  # Ollama sends arguments as an object: its halves go as JSON escapes
        arguments = {"path": "f.txt", "content": "\ud83d\ude00 \ud83d\ude01 \ud800 \ud800"}
    turns = [
        Turn(reasoning_deltas=["hmm \ud83e", "\udd14"], calls=[Call("write", arguments)]),
        Turn(text_deltas=DELTAS),
    ]
    server = {"anthropic": fakeanthropic, "ollama": fakeollama}.get(route.split("-")[0], fakellm)
    server.script(turns)
    model, env = _env(route, flue_env, fakeanthropic, fakeollama)
    effort = ["--effort", "high"] if route.startswith("anthropic") else []
    out = flue_main(
        "-p", "go", "--model", model, "--output-format", "json", "--permission-mode", "yolo", *effort, env=env
    )
    assert out.code == 0, out.stderr + str(getattr(server, "rejections", ""))
    assert _result(out.stdout)["result"] == SHOWN
    assert (tmp_path / "f.txt").read_text(encoding="utf-8") == "😀 😁 \ufffd \ufffd"
    assert not getattr(server, "rejections", None)  # the stand-in took the history back (a signed thinking too)
    sid = _result(out.stdout)["session_id"]
    shown = flue_main("sessions", "show", sid, env=env)
    assert shown.code == 0 and SHOWN in shown.stdout, shown.stderr
    assert "hmm 🤔" in shown.stdout or route == "ollama"  # the thinking (Ollama is asked for none)


def test_the_joiner_holds_a_high_half_only_until_the_next_delta() -> None:
    from flue_tui.core.surrogates import Joiner

    joiner = Joiner()
    got = [joiner.feed(p) for p in ["\ude00a\ud83d", "", "\ud83d", "\ude00", "\ud83db", "plain"]]
    # A low half first, a high half then another high half, a high half then a letter.
    assert got == ["\ufffda", "", "\ufffd", "😀", "\ufffdb", "plain"] and joiner.flush() == ""
