"""What the client offers: its files (`fs/*`, edits land in its buffers, unsaved text is what the
model reads) and its terminals (`terminal/*`, a command runs there and its output is the result);
its MCP servers (started through flue's manager, asked about like any tool)."""

from __future__ import annotations

import sys

from acp import text_block
from acp.schema import McpServerStdio

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn
from tests.mcp.conftest import SERVER


def test_edits_go_through_the_clients_buffers(fakellm, flue_env, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("x = 1\n")  # on disk; the editor holds an unsaved change
    (tmp_path / "elsewhere.txt").write_text("disk\n")
    fakellm.script(
        [
            Turn(calls=[Call("read", {"path": "a.py"})]),
            Turn(calls=[Call("edit", {"path": "a.py", "oldText": "x = 2", "newText": "x = 3"})]),
            Turn(calls=[Call("write", {"path": str(tmp_path / "elsewhere.txt"), "content": "outside\n"})]),
            Turn(text="Done."),
        ]
    )

    async def main():
        async with running(flue_env, work, "--permission-mode", "accept-edits", fs=True) as (conn, client, _):
            client.buffers[str(work / "a.py")] = "x = 2\n"
            client.answers = ["allow_once"]
            new = await conn.new_session(cwd=str(work), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("change it")])
            return client

    client = run(main())
    first_result = [m for m in fakellm.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert "x = 2" in first_result  # the unsaved buffer, not the disk
    assert client.writes == [(str(work / "a.py"), "x = 3\n")]  # the edit landed in the editor
    assert (work / "a.py").read_text() == "x = 1\n"  # the disk is the editor's to save
    assert (tmp_path / "elsewhere.txt").read_text() == "outside\n"  # outside the workspace: on disk as always
    assert ("write", str(tmp_path / "elsewhere.txt")) not in client.fs_requests


def test_commands_run_in_the_clients_terminal(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo from-the-terminal; exit 3"})]), Turn(text="Ran.")])

    async def main():
        async with running(flue_env, tmp_path, terminal=True) as (conn, client, _):
            client.answers = ["allow_once"]
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("run it")])
            return client

    client = run(main())
    (term,) = client.terminals.values()
    assert term["argv"] == ["bash", "-c", "echo from-the-terminal; exit 3"] and term["released"]
    assert client.questions[0][0].kind == "execute"
    done = client.of("tool_call_update")[-1]
    assert done.content[0].type == "terminal"
    result = [m for m in fakellm.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert "from-the-terminal" in result and "3" in result


def test_an_mcp_server_given_by_the_client(fakellm, flue_env, tmp_path):
    fakellm.script(
        [Turn(calls=[Call("mcp__tools__echo", {"text": "hi"})]), Turn(text="Echoed."), Turn(text="Refused.")]
    )
    server = McpServerStdio(name="tools", command=sys.executable, args=[SERVER, "stdio"], env=[])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            client.answers = ["allow_once"]
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[server])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("echo")])
            return client

    client = run(main())
    assert client.questions and client.questions[0][0].kind == "execute"  # asked, like any MCP tool
    tools = [t["function"]["name"] for t in fakellm.requests[0]["tools"]]
    assert "mcp__tools__echo" in tools
    result = [m for m in fakellm.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert "echo: hi" in result
