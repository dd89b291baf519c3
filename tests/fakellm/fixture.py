"""pytest plugin: `pytest_plugins = ["tests.fakellm.fixture"]` provides `fakellm`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeLLM


@pytest.fixture
def fakellm() -> Iterator[FakeLLM]:
    """A started FakeLLM per test; stopped (no assertions) at teardown.

    Sync fixture on purpose: the server has its own loop thread, so it works for
    sync and async tests alike.
    """
    with FakeLLM() as llm:
        yield llm
