"""The stand-ins are as strict about image parts as the real APIs: a malformed one is a 400 in the
provider's words, a well-formed one passes."""

from __future__ import annotations

import base64

import httpx
import pytest

from tests.fakellm import Turn
from tests.images.pictures import fmt, png

GOOD = base64.b64encode(png()).decode()


def _openai(fakellm, part: dict, role: str = "user") -> httpx.Response:
    fakellm.script(Turn(text="ok"))
    body = {"model": "m", "messages": [{"role": role, "content": [{"type": "text", "text": "x"}, part]}]}
    return httpx.post(f"{fakellm.base_url}/chat/completions", json=body, timeout=60)


@pytest.mark.parametrize(
    ("part", "said"),
    [
        (
            {"type": "image_url", "image_url": {"url": "data:image/bmp;base64," + GOOD}},
            "unsupported MIME type 'image/bmp'",
        ),
        ({"type": "image_url", "image_url": {"url": "data:image/png;base64,!!!"}}, "unsupported image"),
        (
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(b"hi").decode()}},
            "unsupported image",
        ),
        ({"type": "image_url", "image_url": {}}, "Missing required parameter"),
        (
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": GOOD}},
            "Invalid value: 'image'",
        ),
    ],
)
def test_openai_refuses_malformed_image_parts(fakellm, part: dict, said: str) -> None:
    reply = _openai(fakellm, part)
    assert reply.status_code == 400 and said in reply.json()["error"]["message"]
    assert fakellm.rejections


def test_openai_takes_a_data_url_image_in_a_user_message_only(fakellm) -> None:
    part = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + GOOD}}
    assert _openai(fakellm, part).status_code == 200
    refused = _openai(fakellm, part, role="assistant")
    assert refused.status_code == 400 and "only allowed for messages with role 'user'" in refused.text


def _anthropic(fakeanthropic, block: dict) -> httpx.Response:
    fakeanthropic.script(Turn(text="ok"))
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [block]}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    return httpx.post(f"{fakeanthropic.base_url}/v1/messages", json=body, headers=headers, timeout=60)


def _source(media: str, data: str) -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}


@pytest.mark.parametrize(
    ("block", "said"),
    [
        ({"type": "image_url", "image_url": {"url": "data:image/png;base64," + GOOD}}, "Input tag 'image_url'"),
        (_source("image/bmp", GOOD), "media_type: Input should be"),
        (_source("image/png", "%%%"), "not valid base64"),
        (_source("image/png", base64.b64encode(b"plain").decode()), "Could not process image"),
        (_source("image/png", base64.b64encode(fmt("JPEG")).decode()), "appears to be a image/jpeg image"),
        (_source("image/png", "A" * (5 * 1024 * 1024 + 4)), "image exceeds 5 MB maximum"),
    ],
)
def test_anthropic_refuses_malformed_image_blocks(fakeanthropic, block: dict, said: str) -> None:
    reply = _anthropic(fakeanthropic, block)
    assert reply.status_code == 400 and said in reply.json()["error"]["message"]


def test_anthropic_takes_a_base64_image(fakeanthropic) -> None:
    assert _anthropic(fakeanthropic, _source("image/png", GOOD)).status_code == 200
