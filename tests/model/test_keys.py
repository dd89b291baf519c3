""" "Is a key needed?" is answered once (model/keys.py): the startup warning, `flue doctor`, the
`/model` list and the request agree, also for `OPENAI_API_BASE`, which only the request knew."""

from __future__ import annotations

import json

import pytest

from flue_tui.cli.doctor import run_doctor
from flue_tui.config.settings import Settings
from flue_tui.model.catalog import configured_providers
from flue_tui.model.keys import key_need
from flue_tui.ui.keys import missing_key


def doctor_key(capsys, model: str) -> dict:
    run_doctor(["--json", "--timeout", "2", "--model", model])
    return next(c for c in json.loads(capsys.readouterr().out) if c["check"] == "key")


@pytest.mark.parametrize("base_var", ["OPENAI_BASE_URL", "OPENAI_API_BASE"])
def test_a_local_openai_endpoint_needs_no_key_everywhere(
    base_var, fakellm, monkeypatch, capsys, tmp_path, _isolated_home
):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(base_var, fakellm.base_url)
    monkeypatch.chdir(tmp_path)
    assert not key_need("openai/fake").missing
    assert missing_key(Settings(model="openai/fake")) is None
    assert configured_providers() == ["openai"]
    found = doctor_key(capsys, "openai/fake")
    assert found["status"] == "ok" and found["detail"].endswith(f"not needed for the local endpoint {fakellm.base_url}")


def test_a_missing_key_is_named_the_same_way(monkeypatch, capsys, tmp_path, _isolated_home):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    need = key_need("anthropic/claude-sonnet-4-5")
    assert need.missing and need.var == "ANTHROPIC_API_KEY"
    assert "set ANTHROPIC_API_KEY" in (missing_key(Settings(model="anthropic/claude-sonnet-4-5")) or "")
    assert doctor_key(capsys, "anthropic/claude-sonnet-4-5")["detail"] == "ANTHROPIC_API_KEY is not set"
    # An explicit api_base makes the key optional for any provider; Ollama never needs one.
    assert not key_need("anthropic/claude-sonnet-4-5", "http://127.0.0.1:1").missing
    assert not key_need("ollama/qwen3").missing and key_need("ollama_chat/qwen3").var == ""
