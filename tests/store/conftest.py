"""Fixtures for the store: a real SQLite file under the test's FLUE_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.store.sessions import SessionStore


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
def store(db_path: Path):
    with SessionStore.open(db_path) as s:
        yield s


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def assistant(text: str = "", calls: list[tuple[str, str]] | None = None, **kw) -> dict:
    tool_calls = [
        {"id": cid, "name": name, "arguments": {"path": "a"}, "raw_arguments": ""} for cid, name in calls or []
    ]
    return {
        "role": "assistant",
        "text": text,
        "thinking": "",
        "tool_calls": tool_calls,
        "stop_reason": "tool_calls" if tool_calls else "stop",
        "error": None,
        "model": "openai/fake",
        "usage": None,
        **kw,
    }


def result(call_id: str, text: str, name: str = "read", is_error: bool = False) -> dict:
    return {
        "role": "toolResult",
        "tool_call_id": call_id,
        "tool_name": name,
        "text": text,
        "is_error": is_error,
        "details": {},
    }


@pytest.fixture
def make_session(fakellm):
    """A real Session over the real litellm client, against the scripted server."""
    from flue_tui.agent.session import Session
    from flue_tui.model.litellm_client import LiteLLMClient

    def make(tools: list, **kw) -> Session:
        client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test")
        return Session(model=client, tools=tools, system_prompt="You are a test.", retry_base_ms=5, **kw)

    return make
