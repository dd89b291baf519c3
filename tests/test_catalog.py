"""`/model` listing: known chat models of the providers whose keys are set."""

from __future__ import annotations

from flue_tui.model.catalog import configured_providers, known_models


def test_configured_providers_follow_the_keys():
    assert configured_providers({"ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "g"}) == ["anthropic", "gemini"]
    assert configured_providers({"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}) == ["openai"]
    assert configured_providers({}) == []


def test_known_models_are_provider_prefixed_chat_models():
    listing = known_models(["openai", "anthropic"])
    assert "openai/gpt-4o" in listing["openai"]
    assert "anthropic/claude-sonnet-4-5" in listing["anthropic"] or any(
        m.startswith("anthropic/claude-sonnet-4") for m in listing["anthropic"]
    )
    assert not any("embedding" in m for m in listing["openai"])  # not chat models
