"""/model is a model swap only (issue 24): the live session gets a new client, and nothing else is
built again: the MCP servers keep running (same connection, same server session), the permission
config is not read again, the policy is the same object."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from flue_tui.config.errors import ConfigError
from flue_tui.config.files import user_file
from flue_tui.config.settings import Settings
from flue_tui.mcp.manager import manager
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions
from tests.fakellm import Turn
from tests.mcp.conftest import mcp_json, stdio_entry


def _tools(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


async def test_model_swaps_the_client_and_nothing_else(fakellm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    user_file().parent.mkdir(parents=True, exist_ok=True)
    user_file().write_text('[permissions]\nallow = ["bash(git status)"]\n')
    settings = Settings.from_env(
        model="openai/first",
        cwd=str(tmp_path),
        api_base=fakellm.base_url,
        permission_mode="yolo",
        mcp_config=[mcp_json(docs=stdio_entry())],
        strict_mcp_config=True,
    )
    handle = SessionHandle(settings, SessionOptions(db=str(tmp_path / "s.db")))
    fakellm.script([Turn(text="one"), Turn(text="two")])
    started = await asyncio.to_thread(handle.start)
    session = started.session
    try:
        await session.prompt("hi")  # the first turn starts the servers (Session.before_turn)
        conn = manager().conns["docs"]
        await conn.wait_ready(60)
        assert conn.status == "connected"
        server_task, server_session = conn._task, conn._session
        policy, before_turn = session.seams.before_tool, session.seams.before_turn
        # A permission file that no longer parses: reading it again would stop with a ConfigError.
        user_file().write_text("[permissions]\nallow = 5\n")

        assert handle.switch_model("openai/second") == "Model: openai/second"
        assert manager().conns["docs"] is conn and conn.status == "connected"
        assert (conn._task, conn._session) == (server_task, server_session)  # not restarted
        assert (session.seams.before_tool, session.seams.before_turn) == (policy, before_turn)
        assert handle.session is session  # the same session, only its client changed

        await session.prompt("again")
        assert [r["model"] for r in fakellm.requests] == ["first", "second"]
        assert "mcp__docs__echo" in _tools(fakellm.requests[0]) & _tools(fakellm.requests[1])
        assert (conn._task, conn._session) == (server_task, server_session)
        with pytest.raises(ConfigError):  # what /model did not do: /new builds a Runtime, reading it again
            await handle.replace(None)
    finally:
        handle.close()
        await manager().stop()
