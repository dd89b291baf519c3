"""MCP config, trust, names and permissions, in process (real servers where a server is needed)."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import pytest

from flue_tui.agent.seams import Seams
from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.mcp.config import McpSetup, ServerConfig, load
from flue_tui.mcp.manager import McpManager
from flue_tui.mcp.tools import safe_schema, tool_name
from flue_tui.permissions.policy import PLAN_TEXT, PermissionPolicy
from flue_tui.permissions.project import accept, pending
from flue_tui.permissions.rules import parse_rule
from tests.mcp.conftest import SERVER, mcp_json, stdio_entry


def test_names_are_valid_for_providers_and_unique():
    taken: set[str] = set()
    assert tool_name("git hub", "create.issue/v2", taken) == "mcp__git_hub__create_issue_v2"
    assert tool_name("git_hub", "create_issue_v2", taken) == "mcp__git_hub__create_issue_v2_2"
    long = tool_name("s", "x" * 200, taken)
    other = tool_name("s", "x" * 199 + "y", taken)
    assert len(long) == len(other) == 64 and long != other
    for name in taken:
        assert all(c.isalnum() or c in "_-" for c in name) and 1 <= len(name) <= 64


def test_hostile_schema_is_reduced_to_an_object_schema():
    schema = safe_schema({"type": "string", "properties": {"a": "nope", "b": {"type": "integer"}}, "required": "ab"})
    assert schema == {"type": "object", "properties": {"b": {"type": "integer"}}, "required": []}
    assert safe_schema(None) == {"type": "object", "properties": {}}


def test_hostile_nested_schema_cannot_break_the_argument_checker():
    from flue_tui.core.validation import validate_arguments

    raw = {
        "type": "object",
        "properties": {
            "o": {"type": "object", "properties": "x", "required": 5},
            "a": {"type": "array", "items": "nope"},
            "s": {"type": "string", "minLength": "3"},
            "deep": {"type": "object", "properties": {"d": {"type": "object", "properties": ["x"]}}},
        },
    }
    schema = safe_schema(raw)
    args = {"o": {"k": 1}, "a": [1, 2], "s": "x", "deep": {"d": {"z": 1}}}
    assert validate_arguments("mcp__x__y", schema, args) == (args, None)


def _settings(tmp_path, **kw) -> Settings:
    return Settings.from_env(cwd=str(tmp_path), model="openai/fake", **kw)


def test_bad_config_is_one_sentence_naming_file_and_key(tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "a", "args": "b"}}}))
    setup = load(_settings(tmp_path, trust_project=True))  # a project's bad file: a notice, flue starts
    assert setup.servers == () and setup.notices == (
        f"Ignored .mcp.json: {tmp_path}/.mcp.json: mcpServers.x.args must be a list of strings",
    )
    with pytest.raises(ConfigError, match="--mcp-config: invalid JSON"):
        load(_settings(tmp_path, mcp_config=["{nope"], strict_mcp_config=True))
    user = tmp_path / "home.toml"
    (tmp_path / ".mcp.json").unlink()
    from flue_tui.config.files import user_file

    user_file().write_text('[mcp_servers.gh]\nurl = "ftp://x"\n')
    with pytest.raises(ConfigError, match=r"config\.toml: mcp_servers\.gh\.url must be an http:// or https:// URL"):
        load(_settings(tmp_path))
    del user


def test_project_file_may_not_read_provider_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    (tmp_path / ".mcp.json").write_text(mcp_json(x={"command": "a", "env": {"K": "${OPENAI_API_KEY}"}}))
    setup = load(_settings(tmp_path, trust_project=True))
    assert setup.servers == () and "may not read flue's environment" in setup.notices[0]


def test_project_servers_wait_for_trust_then_start(tmp_path):
    (tmp_path / ".mcp.json").write_text(mcp_json(p=stdio_entry()))
    settings = _settings(tmp_path)
    setup = load(settings)
    assert setup.servers == () and [s.name for s in setup.held] == ["p"]
    assert setup.notices[0].startswith("Not started from .mcp.json because you have not trusted this project: p")
    asked = pending(settings)
    assert asked is not None and asked.path.endswith("/.mcp.json")
    assert [h.key for h in asked.held] == [".mcp.json server p"]
    settings = accept(settings, asked)
    assert [s.name for s in load(settings).servers] == ["p"]
    # A changed file is untrusted again: a pull cannot swap the program.
    (tmp_path / ".mcp.json").write_text(mcp_json(p={"command": "sh", "args": ["-c", "evil"]}))
    assert load(settings).servers == () and pending(settings).changed


def test_user_server_wins_over_a_project_server_of_the_same_name(tmp_path):
    from flue_tui.config.files import user_file

    user_file().write_text('[mcp_servers.gh]\ncommand = "mine"\n')
    (tmp_path / ".mcp.json").write_text(mcp_json(gh={"command": "theirs"}))
    [server] = load(_settings(tmp_path, trust_project=True)).servers
    assert server.command == "mine"


def test_strict_uses_only_flag_servers(tmp_path):
    from flue_tui.config.files import user_file

    user_file().write_text('[mcp_servers.gh]\ncommand = "mine"\n')
    setup = load(_settings(tmp_path, mcp_config=[mcp_json(f={"command": "x"})], strict_mcp_config=True))
    assert [s.name for s in setup.servers] == ["f"]


def _tools(trust_read_only: bool) -> dict:
    async def run() -> dict:
        manager = McpManager()
        config = ServerConfig(
            "t", "stdio", "test", command=sys.executable, args=(SERVER, "stdio"), trust_read_only_hint=trust_read_only
        )
        manager.configure(McpSetup((config,)), ".")
        manager.start()
        await manager.wait_started()
        tools = dict(manager.tools)
        await manager.stop()
        return tools

    return asyncio.run(run())


def test_modes_and_rules_apply_to_mcp_tools():
    tools = _tools(trust_read_only=False)
    add, echo = tools["mcp__t__add"], tools["mcp__t__echo"]
    assert add.read_only_hint and add.traits.kind == "execute"  # the hint alone is not enough
    ask = PermissionPolicy(mode="ask")
    assert ask.decide(echo.name, {}, echo).verdict == "ask"
    assert ask.decide(add.name, {}, add).verdict == "ask"
    plan = PermissionPolicy(mode="plan")
    assert plan.decide(add.name, {}, add).reason == PLAN_TEXT.format(tool=add.name)
    allowed = PermissionPolicy(mode="ask", allow=[parse_rule("mcp__t__*")])
    assert allowed.decide(echo.name, {}, echo).verdict == "allow"
    server_rule = PermissionPolicy(mode="yolo", deny=[parse_rule("mcp__t")])
    assert server_rule.decide(echo.name, {}, echo).verdict == "deny"
    other = PermissionPolicy(mode="yolo", deny=[parse_rule("mcp__other__*")])
    assert other.decide(echo.name, {}, echo).verdict == "allow"


def test_read_only_hint_runs_without_asking_once_the_user_trusts_it():
    tools = _tools(trust_read_only=True)
    add, echo = tools["mcp__t__add"], tools["mcp__t__echo"]
    assert add.traits.kind == "read" and echo.traits.kind == "execute"
    assert PermissionPolicy(mode="ask").decide(add.name, {}, add).verdict == "allow"
    assert PermissionPolicy(mode="plan").decide(add.name, {}, add).verdict == "allow"
    assert PermissionPolicy(mode="plan").decide(echo.name, {}, echo).verdict == "deny"


def test_sessions_get_tools_and_list_changes_reach_them():
    from flue_tui.agent.session import Session
    from flue_tui.tools.base import ToolContext

    async def run() -> None:
        manager = McpManager()
        session = Session(model=None, tools=[], seams=Seams(before_turn=manager.before_turn))
        child = Session(model=None, tools=[], depth=1, seams=Seams(before_turn=manager.before_turn))
        manager.attach(session)
        manager.attach(child)  # a task sub-agent gets the same servers
        config = ServerConfig("t", "stdio", "test", command=sys.executable, args=(SERVER, "stdio"))
        manager.configure(McpSetup((config,)), ".")
        assert session.tools == {}  # nothing starts while configuring
        await session.seams.before_turn(session)
        assert "mcp__t__echo" in session.tools and "mcp__t__echo" in child.tools
        assert "mcp__t__grown" not in session.tools
        result = await session.tools["mcp__t__grow"].execute({}, ToolContext("c1", None))
        assert result.text == "grew"
        await _until(lambda: "mcp__t__grown" in child.tools)  # the notification arrives, then the new listing
        grown = await child.tools["mcp__t__grown"].execute({}, ToolContext("c2", None))
        assert grown.text == "grown ok"
        manager.configure(McpSetup(()), ".")  # the server removed: its tools go
        assert not any(name.startswith("mcp__") for name in session.tools)
        await manager.stop()

    asyncio.run(run())


async def _until(cond, timeout: float = 120.0) -> None:
    """Poll cond() until it holds (generous: a loaded box starts a Python MCP server slowly)."""
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def test_a_server_crashing_mid_call_is_a_tool_error_and_one_notice():
    from flue_tui.agent.session import Session
    from flue_tui.core.abort import ToolError
    from flue_tui.core.events import Log
    from flue_tui.tools.base import ToolContext

    async def run() -> None:
        manager = McpManager()
        session = Session(model=None, tools=[], seams=Seams(before_turn=manager.before_turn))
        logs: list[str] = []
        session.subscribe(lambda e: logs.append(e.message) if isinstance(e, Log) else None)
        manager.attach(session)
        config = ServerConfig("t", "stdio", "test", command=sys.executable, args=(SERVER, "stdio"))
        manager.configure(McpSetup((config,)), ".")
        await session.seams.before_turn(session)
        with pytest.raises(ToolError, match=r"^MCP server t failed: the server closed the connection"):
            await session.tools["mcp__t__crash"].execute({}, ToolContext("c1", None))
        assert not any(name.startswith("mcp__") for name in session.tools)  # its tools are gone
        assert len(logs) == 1 and logs[0].startswith("MCP server t failed: the server closed the connection")
        assert "crash: about to die" in logs[0]  # the tail of its stderr
        assert manager.statuses()[0].status == "failed"
        assert await manager.restart("t") == "t: connected"
        assert "mcp__t__echo" in session.tools
        await manager.stop()

    asyncio.run(run())


def test_an_interrupt_does_not_wait_for_a_server_still_starting(tmp_path):
    from flue_tui.agent.session import Session

    async def run() -> None:
        manager = McpManager()
        session = Session(model=None, tools=[], seams=Seams(before_turn=manager.before_turn))
        manager.attach(session)
        mute = ServerConfig("mute", "stdio", "test", command="sh", args=("-c", "sleep 300"), startup_timeout=600)
        manager.configure(McpSetup((mute,)), str(tmp_path))
        running = asyncio.ensure_future(session.prompt("hi"))
        await _until(lambda: manager.conns["mute"].status == "starting")
        session.abort()
        result = await asyncio.wait_for(running, 120)  # far less than the server's 600 s
        assert result.aborted and manager.conns["mute"].status == "starting"
        await manager.stop()

    asyncio.run(run())


def test_a_server_that_never_answers_fails_after_its_startup_timeout(tmp_path):
    async def run() -> None:
        manager = McpManager()
        mute = ServerConfig(
            "mute", "stdio", "test", command="sh", args=("-c", "echo waiting >&2; sleep 300"), startup_timeout=2
        )
        manager.configure(McpSetup((mute,)), str(tmp_path))
        manager.start()
        await manager.wait_started()
        [status] = manager.statuses()
        assert status.status == "failed" and status.error == "did not start within 2 s (stderr: waiting)"
        await manager.stop()

    asyncio.run(run())
