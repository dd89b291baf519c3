"""MCP in the app: a scripted model calls a real stdio server's tool; /mcp lists it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from flue_tui.config.files import user_file
from flue_tui.mcp.manager import manager
from tests.fakellm import Call, Turn
from tests.mcp.conftest import SERVER
from tests.tui.conftest import idle, make_app, ready, screen_text, submit, wait_for, work  # noqa: F401


async def test_app_calls_an_mcp_tool_and_lists_servers(make_app, fakellm, work: Path):  # noqa: F811
    user_file().parent.mkdir(parents=True, exist_ok=True)
    user_file().write_text(
        f"[mcp_servers.t]\ncommand = {json.dumps(sys.executable)}\n"
        f'args = [{json.dumps(SERVER)}, "stdio"]\n\n[permissions]\nallow = ["mcp__t__*"]\n'
    )
    fakellm.script([Turn(calls=[Call("mcp__t__echo", {"text": "from the app"})]), Turn(text="all done")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "use the server")
        await idle(pilot)
        assert "all done" in screen_text(app)
        assert "mcp__t__echo" in screen_text(app)  # a tool block like any other
        tool_message = fakellm.requests[1]["messages"][-1]
        assert tool_message["role"] == "tool" and tool_message["content"] == "echo: from the app"
        await submit(pilot, "/mcp")
        await wait_for(pilot, lambda: "t  connected" in screen_text(app))
        await manager().stop()
