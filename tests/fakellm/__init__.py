"""Scripted OpenAI-compatible fake LLM server (see server.py)."""

from __future__ import annotations

from .script import CONTEXT_OVERFLOW_MESSAGE, Call, Turn, load_script, turn_from_dict
from .server import UNMATCHED_MESSAGE, FakeLLM

__all__ = [
    "CONTEXT_OVERFLOW_MESSAGE",
    "UNMATCHED_MESSAGE",
    "Call",
    "FakeLLM",
    "Turn",
    "load_script",
    "turn_from_dict",
]
