"""Scripted stand-ins for model APIs: OpenAI-compatible (server.py), Anthropic Messages
(anthropic.py) and Ollama's native API (ollama.py)."""

from __future__ import annotations

from .anthropic import FakeAnthropic
from .ollama import FakeOllama
from .script import CONTEXT_OVERFLOW_MESSAGE, Call, Turn, load_script, turn_from_dict
from .server import UNMATCHED_MESSAGE, FakeLLM

__all__ = [
    "CONTEXT_OVERFLOW_MESSAGE",
    "UNMATCHED_MESSAGE",
    "Call",
    "FakeAnthropic",
    "FakeLLM",
    "FakeOllama",
    "Turn",
    "load_script",
    "turn_from_dict",
]
