"""runtime/handle.py: the one session object every front end drives."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from flue_tui.config.settings import Settings
from flue_tui.core.events import Idle, Operation, ToolStart
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions
from tests.fakellm import Call, Turn


def _handle(fakellm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **flags: object) -> SessionHandle:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    flags.setdefault("model", "openai/fake")
    settings = Settings.from_env(
        cwd=str(tmp_path),
        api_base=fakellm.base_url,
        retry_base_ms=5,
        permission_mode="yolo",
        **flags,
    )
    return SessionHandle(settings, SessionOptions(db=str(tmp_path / "s.db")))


async def test_stop_waits_for_the_run_to_end_without_polling(fakellm, tmp_path, monkeypatch):
    fakellm.script([Turn(calls=[Call("bash", {"command": "sleep 60"})]), Turn(text="never")])
    handle = _handle(fakellm, tmp_path, monkeypatch)
    started = await asyncio.to_thread(handle.start)
    seen: list[object] = []
    tool_started = asyncio.Event()

    def watch(event: object) -> None:
        seen.append(event)
        if isinstance(event, ToolStart):
            tool_started.set()

    started.session.subscribe(watch)
    run = asyncio.ensure_future(started.session.prompt("wait"))
    await asyncio.wait_for(tool_started.wait(), 60)
    await asyncio.wait_for(handle.stop(), 60)
    assert not started.session.running
    assert any(isinstance(e, Operation) for e in seen) and isinstance(seen[-1], Idle)  # its last events are out
    assert (await run).aborted
    handle.close()


async def test_changes_replace_the_settings_and_reach_the_next_session(fakellm, tmp_path, monkeypatch):
    handle = _handle(fakellm, tmp_path, monkeypatch)
    first = handle.settings
    await asyncio.to_thread(handle.start)
    assert handle.switch_model("openai/other") == "Model: openai/other"
    assert handle.set_effort("high") == "Thinking effort: high."
    handle.keep_mode("plan")
    assert (first.model, first.effort, first.permission_mode) == ("openai/fake", None, "yolo")  # a value
    with pytest.raises(dataclasses.FrozenInstanceError):
        handle.settings.model = "openai/x"  # type: ignore[misc]
    assert handle.session.model.model == "openai/other" and handle.session.model.effort == "high"
    started = await handle.replace(None)  # /new
    assert started.session.model.model == "openai/other" and started.session.model.effort == "high"
    from flue_tui.permissions.policy import policy_of

    assert policy_of(started.session).mode == "plan"
    with pytest.raises(ValueError, match="provider/model"):
        handle.switch_model("gpt")
    assert handle.settings.model == "openai/other"  # a refused change changes nothing
    handle.close()


async def test_the_budget_is_given_to_every_session_the_handle_starts(fakellm, tmp_path, monkeypatch):
    handle = _handle(fakellm, tmp_path, monkeypatch, max_budget_usd=0.5, input_price=1.0, output_price=1.0)
    started = await asyncio.to_thread(handle.start)
    assert started.session.max_budget_usd == 0.5
    assert (await handle.replace(None)).session.max_budget_usd == 0.5
    handle.close()


def test_a_budget_that_cannot_be_priced_stops_every_start(fakellm, tmp_path, monkeypatch):
    from flue_tui.config.errors import ConfigError

    handle = _handle(fakellm, tmp_path, monkeypatch, max_budget_usd=0.5)
    with pytest.raises(ConfigError, match="--max-budget-usd needs a price for openai/fake"):
        handle.start()
    assert handle.started is None


async def test_a_model_switch_cannot_leave_the_budget_without_a_price(fakellm, tmp_path, monkeypatch):
    """/model in the app and inline, set_model over stream-json: all switch through the handle,
    which refuses a model litellm cannot price while --max-budget-usd is set."""
    handle = _handle(fakellm, tmp_path, monkeypatch, model="openai/gpt-4o-mini", max_budget_usd=0.5)
    started = await asyncio.to_thread(handle.start)
    with pytest.raises(ValueError, match="--max-budget-usd needs a price for openai/unpriced-thing"):
        handle.switch_model("openai/unpriced-thing")
    assert handle.settings.model == "openai/gpt-4o-mini"
    assert started.session.model.model == "openai/gpt-4o-mini"  # the running session keeps its model
    assert handle.switch_model("openai/gpt-4o") == "Model: openai/gpt-4o"
    handle.close()
