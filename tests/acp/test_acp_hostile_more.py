"""More of a hostile ACP client: one that never answers a permission question and then goes away
(flue must end, not wait for it), a storm of cancels, a second prompt on a busy session."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading

from acp import RequestError, text_block

from tests.acp.client import FLUE, LIMIT, agent_env, running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn


def _send(proc: subprocess.Popen, obj: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(obj).encode() + b"\n")
    proc.stdin.flush()


def _until(proc: subprocess.Popen, check) -> dict:
    assert proc.stdout is not None
    for line in proc.stdout:
        message = json.loads(line)
        if check(message):
            return message
    raise AssertionError("flue ended first")


def test_a_client_that_never_answers_a_question_and_leaves_does_not_keep_flue(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("write", {"path": "never.txt", "content": "x"})]), Turn(text="After.")])
    assert FLUE is not None
    proc = subprocess.Popen(
        [FLUE, "--acp", "--model", "openai/fake"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=agent_env(flue_env),
    )
    try:
        _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        _until(proc, lambda m: m.get("id") == 1)
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(tmp_path), "mcpServers": []}})  # fmt: skip
        sid = _until(proc, lambda m: m.get("id") == 2)["result"]["sessionId"]
        _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "w"}]}})  # fmt: skip
        _until(proc, lambda m: m.get("method") == "session/request_permission")  # never answered
        assert proc.stdin is not None
        proc.stdin.close()  # the editor went away
        assert proc.wait(LIMIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert b"Traceback" not in err, err.decode()
    assert not (tmp_path / "never.txt").exists()


def test_a_storm_of_cancels_and_a_second_prompt_on_a_busy_session(fakellm, flue_env, tmp_path):
    hold = threading.Event()
    fakellm.script([Turn(text="word " * 40, stall_after=2, hold=hold), Turn(text="Next.")])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            sid = new.session_id
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("go")]))
            await client.wait_for(lambda: client.of("agent_message_chunk"))
            try:
                await conn.prompt(session_id=sid, prompt=[text_block("meanwhile")])
            except RequestError:
                pass  # refused in one answer; the running turn goes on
            else:
                raise AssertionError("two prompts ran at once on one session")
            assert not turn.done()
            for i in range(500):
                await conn.cancel(session_id="ses_nope" if i % 2 else sid)
            answer = await asyncio.wait_for(turn, LIMIT)
            assert answer.stop_reason == "cancelled"
            hold.set()
            again = await conn.prompt(session_id=sid, prompt=[text_block("next")])
            assert again.stop_reason == "end_turn"
            return client.text()

    try:
        text = run(main())
    finally:
        hold.set()
    assert text.endswith("Next.")
