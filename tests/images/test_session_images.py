"""The session with images: a model without vision refuses a new image before any request and
keeps nothing of the prompt; after a switch to such a model, earlier images are named in the text
instead of sent (the provider would refuse the whole request)."""

from __future__ import annotations

from flue_tui.agent.session import Session
from flue_tui.core.images import from_bytes
from flue_tui.core.messages import AssistantMessage, UserMessage
from flue_tui.model.litellm_client import LiteLLMClient
from tests.fakellm import Turn
from tests.images.pictures import png


def _session(fakellm, model: str) -> Session:
    client = LiteLLMClient(model, api_base=fakellm.base_url, api_key="sk-test")
    return Session(model=client, tools=[], system_prompt="SYS", retry_base_ms=5)


async def test_no_vision_refuses_a_new_image_and_keeps_no_message(fakellm):
    session = _session(fakellm, "openai/gpt-3.5-turbo")
    result = await session.prompt("what?", images=(from_bytes(png(), "a.png"),))
    assert result.is_error and result.error == (
        "openai/gpt-3.5-turbo does not take images (litellm's model map says it has no vision); "
        "pick a vision model with /model or --model."
    )
    assert session.messages == [] and fakellm.requests == []


async def test_earlier_images_are_named_not_sent_to_a_model_without_vision(fakellm):
    session = _session(fakellm, "openai/gpt-3.5-turbo")
    image = from_bytes(png(), "a.png")
    session.messages += [UserMessage(content="look", images=(image,)), AssistantMessage(text="A square.")]
    fakellm.script(Turn(text="ok"))
    assert not (await session.prompt("and now?")).is_error
    first = fakellm.requests[0]["messages"][1]
    assert first == {"role": "user", "content": "look\n\n[image: a.png] (not sent: this model does not take images)"}
