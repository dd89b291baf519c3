"""The `/model` picker's sources (model/discovery.py) against the stand-in servers: a local
OpenAI-compatible server's `/v1/models`, Ollama's `/api/tags`, litellm's catalog for keyed
providers; and servers that misbehave (dead, hanging, huge, hostile ids, a key refused)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from flue_tui.model.catalog import is_chat_model
from flue_tui.model.discovery import LOCAL, OLLAMA, ModelChoice, gather
from flue_tui.ui.modelpick import matches
from tests.fakellm.ollama import FakeOllama

GUARD_S = 60.0  # only against a hang: gather's own deadline is what is tested


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def _patient_unless_hanging(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-ins answer from this test process, which a loaded box may starve for longer than the
    1.5 s a source gets; only the hanging-server test needs (and pins) that deadline."""
    if "hanging" not in request.fixturenames:
        from flue_tui.model import discovery

        monkeypatch.setattr(discovery, "TIMEOUT_S", 60.0)


@pytest.fixture
def hanging() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


def run(current: str | None, env: dict[str, str]):
    return asyncio.run(asyncio.wait_for(gather(current, env), GUARD_S))


def test_local_server_and_ollama_listed_first_with_their_prefixes(fakellm, fakeollama):
    fakellm.served_models = ["qwen2.5-coder", "llama-3.1-8b"]
    fakeollama.models = {"llama3.2:latest": 131072, "qwen3:8b": 40960}
    got = run("openai/qwen2.5-coder", {"OPENAI_BASE_URL": fakellm.base_url, "OLLAMA_HOST": fakeollama.base_url})
    assert [(c.id, c.source) for c in got.choices] == [
        ("openai/qwen2.5-coder", LOCAL),
        ("openai/llama-3.1-8b", LOCAL),
        ("ollama_chat/llama3.2:latest", OLLAMA),
        ("ollama_chat/qwen3:8b", OLLAMA),
    ]
    assert got.notes == ()
    assert fakellm.model_list_requests == 1


def test_a_dead_source_is_one_sentence_and_the_others_still_listed(fakellm):
    dead = f"http://127.0.0.1:{_dead_port()}"
    got = run(None, {"OPENAI_BASE_URL": fakellm.base_url, "OLLAMA_API_BASE": dead})
    assert [c.id for c in got.choices] == ["openai/fake"]
    assert got.notes == (f"Ollama at {dead}: unreachable (connection refused)",)


def test_the_current_model_is_offered_even_when_no_source_lists_it():
    dead = f"http://127.0.0.1:{_dead_port()}"
    got = run("anthropic/claude-x", {"OPENAI_BASE_URL": dead + "/v1", "OLLAMA_HOST": dead})
    assert got.choices == (ModelChoice("anthropic/claude-x", "current"),)
    assert len(got.notes) == 2 and all("unreachable" in n for n in got.notes)


def test_the_key_is_sent_and_a_refused_one_is_named(fakellm):
    fakellm.api_key = "sk-right"
    dead = f"http://127.0.0.1:{_dead_port()}"
    env = {"OPENAI_BASE_URL": fakellm.base_url, "OPENAI_API_KEY": "sk-right", "OLLAMA_HOST": dead}
    assert [c.id for c in run(None, env).choices] == ["openai/fake"]
    got = run(None, {**env, "OPENAI_API_KEY": "sk-wrong"})
    assert got.choices == ()
    assert got.notes[0] == f"OpenAI-compatible server at {fakellm.base_url}: answered HTTP 401 (is the API key right?)"


def test_catalog_lists_keyed_providers_chat_models_only(fakeollama):
    got = run(None, {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k", "OLLAMA_HOST": fakeollama.base_url})
    ids = [c.id for c in got.choices]
    assert ids[0] == "ollama_chat/qwen3:8b"  # local first
    assert "openai/gpt-4o" in ids and any(i.startswith("anthropic/claude-sonnet-4") for i in ids)
    assert "openai/container" not in ids  # "chat" in litellm's map, but no prices and no window
    assert not any("embedding" in i or "tts" in i or "dall-e" in i or "whisper" in i for i in ids)
    assert not is_chat_model({"mode": "chat"}) and is_chat_model({"mode": "chat", "max_input_tokens": 8})


def test_an_openai_base_url_replaces_openais_catalog_with_the_servers_list(fakellm, fakeollama):
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": fakellm.base_url, "OLLAMA_HOST": fakeollama.base_url}
    assert {c.source for c in run(None, env).choices} == {LOCAL, OLLAMA}


# -- a server that misbehaves ------------------------------------------------------------------------


def test_ten_thousand_ids_are_kept_and_filtering_them_is_a_list_operation(fakellm):
    fakellm.served_models = [f"model-{i:05d}" for i in range(10_000)]
    dead = f"http://127.0.0.1:{_dead_port()}"
    got = run(None, {"OPENAI_BASE_URL": fakellm.base_url, "OLLAMA_HOST": dead})
    assert len(got.choices) == 10_000
    assert [c.id for c in matches(got.choices, "09999")] == ["openai/model-09999"]


def test_ids_with_escapes_are_shown_escaped_and_cannot_be_chosen(fakellm, fakeollama):
    fakellm.served_models = ["good", "evil\x1b]0;pwned\x07", "two\nlines", "a b", 12, None]  # type: ignore[list-item]
    fakeollama.models = {"\x1b[2Jwipe:latest": 1}
    got = run(None, {"OPENAI_BASE_URL": fakellm.base_url, "OLLAMA_HOST": fakeollama.base_url})
    shown = {c.shown: c.usable for c in got.choices}
    assert shown == {
        "openai/good": True,
        "openai/evil\\x1b]0;pwned\\x07": False,
        "openai/two\\nlines": False,
        "openai/a b": False,
        "ollama_chat/\\x1b[2Jwipe:latest": False,
    }
    assert not any("\x1b" in s or "\n" in s for s in shown)


def test_a_hanging_server_is_given_up_on(hanging, fakeollama):
    got = run(None, {"OPENAI_BASE_URL": hanging + "/v1", "OLLAMA_HOST": fakeollama.base_url})
    assert [c.id for c in got.choices] == ["ollama_chat/qwen3:8b"]
    assert got.notes == (f"OpenAI-compatible server at {hanging}/v1: no answer within 1.5 s",)


def test_a_body_that_is_not_a_model_list_is_one_sentence(fakellm):
    with FakeOllama() as ollama:
        ollama.models = {}
        fakellm.served_models = []
        got = run(None, {"OPENAI_BASE_URL": fakellm.base_url + "/nothing-here", "OLLAMA_HOST": ollama.base_url})
    assert got.choices == ()
    assert got.notes == (f"OpenAI-compatible server at {fakellm.base_url}/nothing-here: answered HTTP 404",)
