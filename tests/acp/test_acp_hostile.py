"""What a broken or hostile client sends: every line gets a JSON-RPC answer or is ignored as a
notification, stdout carries nothing but JSON-RPC, and the agent serves the next request. Nothing a
client sends reaches outside the workspace: not a cwd that is no directory, not a link to a file
elsewhere, not `yolo` for a run that did not start in it; text that is no valid Unicode is refused
before it can poison the stored session."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess

from acp import RequestError, resource_link_block, text_block

from tests.acp.client import FLUE, LIMIT, agent_env, running
from tests.acp.conftest import run
from tests.fakellm import Turn


def _lines(*objs: object) -> bytes:
    return b"".join((o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n" for o in objs)


def test_bad_lines_get_errors_and_stdout_stays_json_rpc(fakellm, flue_env, tmp_path):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    stdin = _lines(
        init,
        b"this is not json",
        b"\xff\xfe not utf-8 {",
        [1, 2, 3],
        {"jsonrpc": "2.0", "id": {"x": 1}, "method": "initialize"},
        {"jsonrpc": "2.0", "id": 2, "method": 42},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such_method", "params": {}},
        {"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": {"sessionId": "ses_x", "prompt": []}},
        {"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": "relative/dir", "mcpServers": []}},
        {"jsonrpc": "2.0", "id": 6, "method": "session/new", "params": "a string"},
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "ses_x"}},  # a notification: no answer
        {"jsonrpc": "2.0", "id": 99, "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}},
        b"[" * 100000,
        {"jsonrpc": "2.0", "id": 7, "method": "session/list", "params": {}},
        b'{"jsonrpc": "2.0", "id": 8, "method": "session/list", "params": {"cwd": "/x\\ud800"}}',
    )
    assert FLUE is not None
    proc = subprocess.run(
        [FLUE, "--acp", "--model", "openai/fake"],
        input=stdin,
        capture_output=True,
        cwd=tmp_path,
        env=agent_env(flue_env),
        timeout=LIMIT,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    answers = [json.loads(line) for line in proc.stdout.splitlines()]  # every stdout line is JSON-RPC
    assert all(a.get("jsonrpc") == "2.0" for a in answers)
    by_id = {a["id"]: a for a in answers if a.get("id") is not None}
    assert by_id[1]["result"]["protocolVersion"] == 1
    assert by_id[2]["error"]["code"] == -32600
    assert by_id[3]["error"]["code"] == -32601
    assert by_id[4]["error"]["code"] == -32602
    assert by_id[5]["error"]["code"] == -32602
    assert by_id[6]["error"]["code"] == -32602
    assert "sessions" in by_id[7]["result"]
    assert "error" in by_id[8]  # a path no store can hold: an error answer
    assert b"Traceback" not in proc.stderr  # what went wrong is said in one line
    nulls = [a["error"]["code"] for a in answers if a.get("id") is None]
    assert nulls == [-32700, -32700, -32600, -32600, -32700]  # two non-JSON lines, a list, a bad id, deep nesting
    assert 99 not in by_id  # an answer to a request never made is no request


def test_links_outside_the_workspace_and_unasked_yolo(fakellm, flue_env, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "inside.txt").write_text("in the workspace\n")
    (tmp_path / "outside.txt").write_text("the secret\n")
    os.symlink(tmp_path / "outside.txt", work / "link.txt")
    fakellm.script([Turn(text="Read them.")])

    async def main():
        async with running(flue_env, work) as (conn, _client, _):
            try:
                await conn.new_session(cwd=str(work / "missing"), mcp_servers=[])
            except RequestError as exc:
                assert "does not exist" in str(exc.data)
            else:
                raise AssertionError("a missing cwd was accepted")
            new = await conn.new_session(cwd=str(work), mcp_servers=[])
            try:
                await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
            except RequestError:
                pass
            else:
                raise AssertionError("a client switched the questions off")
            try:  # a lone surrogate cannot be stored or sent: refused, and the session stays usable
                await conn.prompt(session_id=new.session_id, prompt=[text_block("bad \ud800 text")])
            except RequestError as exc:
                assert "not valid Unicode" in str(exc.data)
            else:
                raise AssertionError("a lone surrogate was accepted")
            blocks = [
                text_block("look"),
                resource_link_block("inside.txt", (work / "inside.txt").as_uri()),
                resource_link_block("outside.txt", (tmp_path / "outside.txt").as_uri()),
                resource_link_block("link.txt", (work / "link.txt").as_uri()),
                resource_link_block("passwd", "file:///etc/passwd"),
            ]
            await conn.prompt(session_id=new.session_id, prompt=blocks)

    run(main())
    sent = fakellm.requests[0]["messages"][-1]["content"]
    assert "in the workspace" in sent
    assert "the secret" not in sent and "root:" not in sent


def test_a_client_that_vanishes_mid_turn_leaves_a_stored_session(fakellm, flue_env, tmp_path):
    import threading

    hold = threading.Event()
    fakellm.script([Turn(text="word " * 40, stall_after=4, hold=hold)])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("go")]))
            await client.wait_for(lambda: client.of("agent_message_chunk"))
            assert not turn.done()
            return new.session_id  # leaving the block closes the agent's stdin mid-turn

    try:
        sid = run(main())
    finally:
        hold.set()
    from flue_tui.store.sessions import SessionStore

    with SessionStore.open(None) as store:
        assert store.get(sid) is not None
