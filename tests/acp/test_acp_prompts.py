"""What a prompt may carry (text, embedded resources, `/skill`), and stop reasons that say what
happened: end_turn, max_tokens, refusal, max_turn_requests; a failed turn is a JSON-RPC error."""

from __future__ import annotations

import pytest
from acp import RequestError, embedded_text_resource, image_block, resource_block, text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn


def test_stop_reasons_are_honest(fakellm, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(text="cut he", finish_reason="length"),
            Turn(text="", finish_reason="content_filter"),
            Turn(calls=[Call("read", {"path": "x"})]),
            Turn(status=400, error_message="bad request from the provider"),
        ]
    )

    async def main():
        async with running(flue_env, tmp_path, "--max-turns", "1") as (conn, _client, _):
            sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
            reasons = []
            for word in ("long", "refuse", "loop"):
                reasons.append((await conn.prompt(session_id=sid, prompt=[text_block(word)])).stop_reason)
            with pytest.raises(RequestError) as failed:
                await conn.prompt(session_id=sid, prompt=[text_block("fail")])
            answer = await conn.prompt(session_id=sid, prompt=[text_block("/no-such-skill")])
            return reasons, failed.value, answer

    reasons, failed, answer = run(main())
    assert reasons == ["max_tokens", "refusal", "max_turn_requests"]
    assert "bad request" in str(failed) or "bad request" in str(failed.data)
    assert answer.stop_reason == "end_turn"  # `/no-such-skill` is answered with one sentence, no model call
    assert len(fakellm.requests) == 4


def test_embedded_resources_and_images(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(text="Seen.")])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
            selection = embedded_text_resource("file:///project/unsaved.py", "def unsaved():\n    pass\n")
            await conn.prompt(session_id=sid, prompt=[text_block("explain"), resource_block(selection)])
            with pytest.raises(RequestError):  # "hi" is no PNG: refused, not dropped
                await conn.prompt(session_id=sid, prompt=[image_block("aGk=", "image/png")])
            return client

    run(main())
    sent = fakellm.requests[0]["messages"][-1]["content"]
    assert sent.startswith("explain") and "def unsaved():" in sent and "file:///project/unsaved.py" in sent
