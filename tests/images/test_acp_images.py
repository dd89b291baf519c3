"""ACP prompts with image blocks, driven through the SDK's client side: promptCapabilities says
image; a PNG reaches the model's request; broken blocks are one JSON-RPC error each and the
session goes on; a resumed session (`session/load`) shows the image's chip."""

from __future__ import annotations

import base64

import pytest
from acp import RequestError, image_block, text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Turn
from tests.images.pictures import png

DATA = base64.b64encode(png(7, 7)).decode()


def test_an_image_block_reaches_the_model_and_broken_ones_are_refused(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(text="Red."), Turn(text="still here")])

    async def main():
        async with running(flue_env, tmp_path) as (conn, _client, init):
            assert init.agent_capabilities.prompt_capabilities.image is True
            sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("what colour?"), image_block(DATA, "image/png")])
            errors = []
            for data, mime in (
                ("%%%not base64", "image/png"),
                (base64.b64encode(b"GIF89a").decode(), "image/gif"),
                (DATA, "image/tiff"),
            ):
                with pytest.raises(RequestError) as refused:
                    await conn.prompt(session_id=sid, prompt=[text_block("x"), image_block(data, mime)])
                errors.append(str(refused.value.data))
            await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
            return errors

    errors = run(main())
    assert "not valid base64" in errors[0]
    assert "could not be read as an image" in errors[1]
    assert "media type 'image/tiff'" in errors[2]
    first = fakellm.requests[0]["messages"][-1]["content"]
    assert first == [
        {"type": "text", "text": "what colour?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{DATA}"}},
    ]
    assert len(fakellm.requests) == 2 and fakellm.requests[1]["messages"][-1]["content"] == "and now?"
