"""MCP in inline mode: a project's .mcp.json HTTP server is asked about, trusted, then its tool is
called by a scripted model; /mcp lists it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakellm import Call, Turn
from tests.inline.conftest import inline, work  # noqa: F401
from tests.mcp.conftest import http_server  # noqa: F401

SLOW = 120.0


def test_inline_trusts_and_calls_a_project_http_server(inline, fakellm, work: Path, http_server):  # noqa: F811
    (work / ".mcp.json").write_text(json.dumps({"mcpServers": {"h": {"type": "http", "url": http_server}}}))
    fakellm.script([Turn(calls=[Call("mcp__h__add", {"a": 2, "b": 40})]), Turn(text="Sum is done.")])
    term = inline("--allowed-tools", "mcp__h__*")
    term.wait_for("Trust this project?", timeout=SLOW)
    term.wait_for(f".mcp.json server h: http {http_server}", timeout=SLOW)  # the question's lines arrive in turn
    term.send("y")
    term.send("go\r")
    term.wait_for("Sum is done.", timeout=SLOW)
    assert fakellm.requests[1]["messages"][-1]["content"] == "42"
    term.send("/mcp\r")
    term.wait_for("h  connected")
    term.send("/quit\r")
    assert term.exit_code() == 0
