"""One row per provider (core/providers.py): every table keyed by a provider's name reads it (issue 43)."""

from __future__ import annotations

from flue_tui.config.settings import DEFAULT_MODELS
from flue_tui.core import providers
from flue_tui.model.errors import readable
from flue_tui.model.keyhelp import KEY_VARS_SHOWN
from flue_tui.model.keys import configured_providers, key_need


def test_a_rows_key_variable_label_and_default_are_what_every_table_reads() -> None:
    for row in providers.ROWS:
        need = key_need(f"{row.name}/some-model", environ={row.key_var or "X": "k"})
        if row.name.startswith("ollama"):
            assert need.var == ""  # Ollama needs no key
            continue
        assert need.var == providers.key_var(row.name)
        assert need.well_known == bool(row.key_var)
        assert readable("boom", provider=row.name, status=500).startswith(f"{row.label} returned 500")
    assert [m for _, m in DEFAULT_MODELS][0] == "anthropic/claude-sonnet-4-5"  # the first row's, by order
    assert KEY_VARS_SHOWN == "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or OPENROUTER_API_KEY"


def test_a_provider_without_a_row_keeps_litellms_convention() -> None:
    assert key_need("cohere/command-r", environ={}).var == "COHERE_API_KEY"
    assert readable("boom", provider="cohere", status=400).startswith("Cohere returned 400")
    assert readable("boom", provider="", status=400).startswith("The provider returned 400")
    assert configured_providers({"GROQ_API_KEY": "k", "COHERE_API_KEY": "k"}) == ["groq"]
