"""Compaction of a conversation with an image: the summariser (text only) reads where the image
was, the summary says it was there, and the next request sends no image it no longer holds."""

from __future__ import annotations

from flue_tui.core.images import from_bytes
from flue_tui.core.messages import CompactionMessage
from tests.agent.test_compaction import session_with, summariser_request
from tests.fakellm import Turn
from tests.images.pictures import png


async def test_a_compaction_names_the_image_it_summarised(fakellm):
    session = session_with(fakellm, keep=2, window=None)
    fakellm.script([Turn(text="A red square."), Turn(text="ok")])
    await session.prompt("what is this?", images=(from_bytes(png(), "shot.png"),))
    assert isinstance(fakellm.requests[0]["messages"][-1]["content"], list)
    await session.prompt("two")
    fakellm.script([Turn(text="SUMMARY"), Turn(text="after")])
    assert not (await session.compact()).is_error
    _, user = summariser_request(fakellm.requests[-1])
    assert "[User]: what is this? [image: shot.png]" in user
    marker = next(m for m in session.messages if isinstance(m, CompactionMessage))
    assert marker.summary.endswith("<images>\nshot.png (image/png)\n</images>")
    await session.prompt("and now?")
    assert "image_url" not in str(fakellm.requests[-1]["messages"])
