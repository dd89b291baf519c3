"""pytest plugin: `pytest_plugins = ["tests.fakellm.fixture"]` provides `fakellm`,
`fakeanthropic` and `fakeollama`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .anthropic import FakeAnthropic
from .ollama import FakeOllama
from .server import FakeLLM


@pytest.fixture
def fakellm() -> Iterator[FakeLLM]:
    """A started FakeLLM per test; stopped (no assertions) at teardown.

    Sync fixture on purpose: the server has its own loop thread, so it works for
    sync and async tests alike.
    """
    with FakeLLM() as llm:
        yield llm


@pytest.fixture
def fakeanthropic() -> Iterator[FakeAnthropic]:
    """A started strict Anthropic Messages stand-in (point ANTHROPIC_API_BASE at `.base_url`)."""
    with FakeAnthropic() as llm:
        yield llm


@pytest.fixture
def fakeollama() -> Iterator[FakeOllama]:
    """A started strict Ollama stand-in with one model, `qwen3:8b` (OLLAMA_HOST=`.base_url`)."""
    with FakeOllama() as llm:
        yield llm
