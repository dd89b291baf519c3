"""`flue mcp add|remove|list|get`, `flue doctor`'s MCP lines and `/mcp`, in process."""

from __future__ import annotations

import asyncio
import json
import sys

from flue_tui.config.files import user_file
from flue_tui.config.settings import Settings
from flue_tui.mcp import commands, doctor
from flue_tui.mcp.cli import main
from flue_tui.mcp.config import load
from flue_tui.mcp.manager import manager
from tests.mcp.conftest import SERVER, mcp_json


def test_add_and_remove_in_the_user_file_keep_the_rest(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    user_file().write_text('model = "openai/x"  # mine\n')
    assert main(["add", "-e", "TOKEN=abc", "fs", "--", sys.executable, SERVER, "stdio"]) == 0
    assert main(["add", "-t", "http", "web", "http://127.0.0.1:9/mcp", "-H", "Authorization: Bearer t"]) == 0
    servers = {s.name: s for s in load(Settings.from_env(cwd=str(tmp_path), model="openai/x")).servers}
    assert servers["fs"].args == (SERVER, "stdio") and dict(servers["fs"].env) == {"TOKEN": "abc"}
    assert servers["web"].transport == "http" and dict(servers["web"].headers) == {"Authorization": "Bearer t"}
    assert main(["remove", "fs"]) == 0
    text = user_file().read_text()
    assert text.startswith('model = "openai/x"  # mine\n') and "fs" not in text and "[mcp_servers.web]" in text
    assert main(["add", "web", "--", "x"]) == 2
    assert "already has a server named web" in capsys.readouterr().err


def test_add_to_the_project_file_and_list(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {}, "other": 1}))
    assert main(["add", "-s", "project", "p", "--", "node", "s.js", "--flag"]) == 0
    data = json.loads((tmp_path / ".mcp.json").read_text())
    assert data == {"mcpServers": {"p": {"command": "node", "args": ["s.js", "--flag"]}}, "other": 1}
    capsys.readouterr()
    assert main(["list"]) == 0
    assert capsys.readouterr().out == "p  (project, not trusted)  node s.js --flag\n"
    assert main(["remove", "-s", "project", "p"]) == 0
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"] == {}


def test_bad_input_is_one_sentence(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["add", "bad name", "--", "x"]) == 2
    assert main(["add", "-t", "http", "w", "ftp://x"]) == 2
    assert main(["remove", "nope"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "flue: Server name 'bad name' must be 1-64 letters, digits, '_' or '-', without '__' or a '_' at the end",
        f"flue: {user_file()}: mcp_servers.w.url must be an http:// or https:// URL",
        "flue: No MCP server named nope in your config.toml or this project's .mcp.json",
    ]


def test_doctor_starts_each_server(tmp_path):
    flag = mcp_json(
        ok={"command": sys.executable, "args": [SERVER, "stdio"]},
        dead={"command": sys.executable, "args": [SERVER, "crash-at-start"]},
    )
    settings = Settings.from_env(cwd=str(tmp_path), model="openai/x", mcp_config=[flag])
    lines = {detail.split(" ")[0]: (status, detail) for status, detail, _ in doctor.checks(settings)}
    assert lines["ok:"][0] == "ok" and lines["ok:"][1].startswith("ok: 10 tools (echo, add,")
    assert lines["dead"][0] == "fail" and "fatal: cannot open the database" in lines["dead"][1]


def test_slash_mcp_lists_and_restarts(tmp_path):
    from flue_tui.runtime.wiring import Runtime

    flag = mcp_json(t={"command": sys.executable, "args": [SERVER, "stdio"]})

    async def run() -> None:
        runtime = Runtime(Settings.from_env(cwd=str(tmp_path), model="openai/x", mcp_config=[flag]))
        session, _ = runtime.new_session()
        text, _ = await commands.run("")
        assert text.startswith("MCP servers:\n  t  pending")
        await session.seams.before_turn(session)
        text, _ = await commands.run("")
        assert "  t  connected" in text and "tools: mcp__t__echo, mcp__t__add" in text
        assert await commands.run("restart t") == ("t: connected", "info")
        assert await commands.run("restart nope") == ("No MCP server named 'nope'.", "warn")
        assert (await commands.run("bogus"))[0] == commands.USAGE
        await manager().stop()
        manager().configure(type(load(runtime.settings))(), str(tmp_path))

    asyncio.run(run())
