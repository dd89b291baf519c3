"""session/cancel: a held stream and a pending permission question both end the prompt with
`cancelled`, nothing the cancelled turn asked for happens, and the session takes the next prompt."""

from __future__ import annotations

import asyncio
import threading

from acp import text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn


def test_cancel_mid_stream_then_the_next_prompt(fakellm, flue_env, tmp_path):
    hold = threading.Event()
    fakellm.script([Turn(text="part " * 40, stall_after=4, hold=hold), Turn(text="Next answer.")])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("go")]))
            await client.wait_for(lambda: client.of("agent_message_chunk"))
            await conn.cancel(session_id=new.session_id)
            answer = await asyncio.wait_for(turn, 60)
            hold.set()
            assert answer.stop_reason == "cancelled"
            client.updates.clear()
            again = await conn.prompt(session_id=new.session_id, prompt=[text_block("again")])
            assert again.stop_reason == "end_turn" and client.text() == "Next answer."

    try:
        run(main())
    finally:
        hold.set()


def test_cancel_while_a_question_waits_leaves_the_file_unwritten(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("write", {"path": "late.txt", "content": "x"})]), Turn(text="After.")])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            client.hold = asyncio.Event()
            client.answers = ["allow_once"]  # the answer a client sends too late
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("w")]))
            await client.wait_for(lambda: client.questions)
            await conn.cancel(session_id=new.session_id)
            answer = await asyncio.wait_for(turn, 60)
            assert answer.stop_reason == "cancelled"
            client.hold.set()  # now it "allows": nothing is waiting for that answer any more
            again = await conn.prompt(session_id=new.session_id, prompt=[text_block("next")])
            assert again.stop_reason == "end_turn"

    run(main())
    assert not (tmp_path / "late.txt").exists()
