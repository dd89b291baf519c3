"""runtime/wiring.main_client: the fallback's client is built where every client is (the user's
idle_timeout, max_reply_chars and prompt_cache), and /model keeps the fallback behind the new model."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from flue_tui.config.settings import Settings
from flue_tui.model.fallback import FallbackClient
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions


def _handle(fakellm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **flags: object) -> SessionHandle:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    settings = Settings.from_env(
        model="openai/main", cwd=str(tmp_path), api_base=fakellm.base_url, permission_mode="yolo", **flags
    )
    return SessionHandle(settings, SessionOptions(db=str(tmp_path / "s.db")))


@pytest.mark.parametrize("cache", [True, False])
async def test_the_fallback_client_gets_the_users_bounds(fakellm, tmp_path, monkeypatch, cache):
    flags = {"idle_timeout": 7.5, "max_reply_chars": 999, "prompt_cache": cache}
    handle = _handle(fakellm, tmp_path, monkeypatch, fallback_model="anthropic/claude-sonnet-4-5", **flags)
    started = await asyncio.to_thread(handle.start)
    client = started.session.model
    assert isinstance(client, FallbackClient)
    parts: list[Any] = [client.primary, client.fallback]  # the concrete clients, not the protocol
    for part in parts:
        assert (part.idle_timeout, part.max_reply_chars) == (7.5, 999)
    assert parts[1].prompt_cache is cache  # an Anthropic model: cached unless the user said no
    handle.close()


async def test_model_keeps_the_fallback_and_effort_reaches_both(fakellm, tmp_path, monkeypatch):
    handle = _handle(fakellm, tmp_path, monkeypatch, fallback_model="openai/spare")
    started = await asyncio.to_thread(handle.start)
    assert handle.switch_model("openai/other") == "Model: openai/other"
    client = started.session.model
    assert isinstance(client, FallbackClient)
    assert (client.primary.model, client.fallback.model) == ("openai/other", "openai/spare")
    assert handle.set_effort("high") == "Thinking effort: high."
    parts: list[Any] = [client.primary, client.fallback]
    assert [p.effort for p in parts] == ["high", "high"]
    assert handle.switch_model("openai/spare") == "Model: openai/spare"  # the fallback itself: no wrapper
    assert not isinstance(started.session.model, FallbackClient)
    handle.close()


async def test_no_fallback_no_wrapper(fakellm, tmp_path, monkeypatch):
    handle = _handle(fakellm, tmp_path, monkeypatch)
    started = await asyncio.to_thread(handle.start)
    assert not isinstance(started.session.model, FallbackClient)
    handle.close()
