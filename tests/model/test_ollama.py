"""Ollama with only OLLAMA_HOST (or nothing) set: no key, and every request carries num_ctx."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from flue_tui.agent.session import Session
from flue_tui.config.endpoints import base_url
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.model.ollama import DEFAULT_CAP
from tests.fakellm import Call, FakeOllama, Turn
from tests.inprocess import call_main
from tests.model.conftest import Lookup


@pytest.fixture
def ollama_host(fakeollama, monkeypatch):
    for var in ("OLLAMA_API_BASE", "OLLAMA_API_KEY", "OLLAMA_CHAT_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OLLAMA_HOST", fakeollama.base_url.removeprefix("http://"))  # Ollama's host:port form
    return fakeollama


def run(model: str, **kw) -> object:
    client = LiteLLMClient(model, **kw)
    return asyncio.run(Session(model=client, tools=[Lookup()], system_prompt="s").prompt("define a"))


def test_tool_round_trip_with_only_ollama_host(ollama_host):
    ollama_host.script([Turn(calls=[Call("lookup", {"word": "a"})]), Turn(text="done")])
    result = run("ollama_chat/qwen3:8b")
    assert not result.is_error, result.error
    assert result.text == "done" and not ollama_host.rejections
    first, second = ollama_host.requests
    # The trained 40960 is capped: Ollama's memory grows with num_ctx.
    assert first["options"]["num_ctx"] == second["options"]["num_ctx"] == DEFAULT_CAP
    tool = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool["content"].startswith("a: a definition.")
    assert result.usage.priced and result.usage.cost == 0.0


def test_context_window_and_modelfile_set_num_ctx(ollama_host):
    ollama_host.script([Turn(text="one"), Turn(text="two")])
    run("ollama_chat/qwen3:8b", context_window=65536)
    assert ollama_host.requests[-1]["options"]["num_ctx"] == 65536
    ollama_host.parameters = 'stop "<|im_end|>"\nnum_ctx 12288'
    client = LiteLLMClient("ollama/qwen3:8b")  # ollama/ is sent to /api/chat too
    asyncio.run(Session(model=client, tools=[], system_prompt="s").prompt("x"))
    assert ollama_host.requests[-1]["options"]["num_ctx"] == 12288
    assert client.context_window() == 12288  # compaction plans with the window Ollama really has


def test_an_unreachable_ollama_is_one_sentence(monkeypatch):
    monkeypatch.delenv("OLLAMA_API_BASE", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # discard port: nothing listens
    result = run("ollama_chat/qwen3:8b")
    assert result.is_error
    assert "Could not reach Ollama at http://127.0.0.1:9" in (result.hint or "")
    assert "\n" not in result.error and "Exception" not in result.error


def test_a_hostile_show_answer_is_not_believed(ollama_host):
    # A 5000-digit num_ctx would make int() raise; a negative or boolean length is nonsense.
    ollama_host.parameters = "num_ctx " + "9" * 5000
    ollama_host.models["bad:1b"] = True
    ollama_host.script([Turn(text="one"), Turn(text="two")])
    run("ollama_chat/qwen3:8b")
    assert ollama_host.requests[-1]["options"]["num_ctx"] == DEFAULT_CAP  # the trained length, capped
    result = run("ollama_chat/bad:1b")
    assert not result.is_error and "num_ctx" not in ollama_host.requests[-1]["options"]


def test_a_missing_model_says_how_to_get_it(ollama_host):
    result = run("ollama_chat/llama9")
    assert result.error == 'prompt failed: Ollama returned 404: model "llama9" not found, try pulling it first'
    assert result.hint == "Ollama has no model 'llama9': `ollama pull llama9`, or pick one from `ollama list`."


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "http://127.0.0.1:11434"),
        ({"OLLAMA_HOST": "0.0.0.0"}, "http://127.0.0.1:11434"),
        ({"OLLAMA_HOST": "box:8080"}, "http://box:8080"),
        ({"OLLAMA_HOST": "https://o.example/"}, "https://o.example:11434"),
        ({"OLLAMA_HOST": "x:1", "OLLAMA_API_BASE": "http://y:2"}, "http://y:2"),
    ],
)
def test_base_url(env, url):
    assert base_url(env) == url


def test_flue_p_without_a_model_flag_uses_ollama(tmp_path):
    with FakeOllama([Turn(calls=[Call("bash", {"command": "echo hi-from-tool"})]), Turn(text="all done")]) as llm:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.endswith("_API_KEY") and not k.startswith(("OLLAMA_", "OPENAI_", "ANTHROPIC_", "FLUE_MODEL"))
        }
        env.update(OLLAMA_HOST=llm.base_url, FLUE_RETRY_BASE_MS="5", PYTHONUNBUFFERED="1")
        proc = call_main(
            ["-p", "--permission-mode", "yolo", "run echo", "--output-format", "json"],
            stdin=None,
            cwd=tmp_path,
            env=env,
        )
        assert proc.code == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["result"] == "all done" and result["model"] == "ollama_chat/qwen3:8b"
        assert all(r["options"]["num_ctx"] == DEFAULT_CAP for r in llm.requests)
        tool = next(m for m in llm.requests[1]["messages"] if m["role"] == "tool")
        assert "hi-from-tool" in tool["content"]
