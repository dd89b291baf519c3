"""core/images.py: the type by magic bytes, the byte bound, downscaling, strict base64, and the
message dict an untrusted export may hand back."""

from __future__ import annotations

import base64
import hashlib

import pytest
from PIL import Image as Pil

from flue_tui.core import images
from flue_tui.core.images import ImageRefused, from_base64, from_bytes, from_dict
from flue_tui.core.messages import UserMessage, message_from_dict, message_to_dict, to_wire
from tests.images.pictures import fmt, noisy_png, png


@pytest.mark.parametrize(
    ("kind", "media"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")]
)
def test_the_four_types_by_magic_bytes(kind: str, media: str) -> None:
    image = from_bytes(fmt(kind), "x.bin")  # the name does not decide
    assert image.media_type == media and image.sha256 == hashlib.sha256(image.data or b"").hexdigest()


@pytest.mark.parametrize("data", [b"not a png at all", b"%PDF-1.7\n", fmt("BMP"), fmt("TIFF"), b""])
def test_anything_else_is_refused_in_one_sentence(data: bytes) -> None:
    with pytest.raises(ImageRefused, match=r"^shot\.png is not a PNG, JPEG, GIF or WebP image\.$"):
        from_bytes(data, "shot.png")


def test_a_truncated_png_is_refused_not_a_traceback() -> None:
    for data in (noisy_png(300, 300)[:20000], noisy_png(1500, 1500)[:4_000_000]):
        with pytest.raises(ImageRefused, match=r"^cut\.png could not be read as an image \(\w+\)\.$"):
            from_bytes(data, "cut.png")


def test_over_the_read_bound_is_refused_unread() -> None:
    with pytest.raises(ImageRefused, match="larger than 20 MB"):
        from_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * images.MAX_READ, "big.png")


def test_a_large_image_is_downscaled_to_what_providers_take() -> None:
    data = noisy_png(1500, 1500)  # ~6.7 MB: over Anthropic's 5 MB of base64
    assert len(data) > images.MAX_SEND
    image = from_bytes(data, "noise.png")
    assert image.data is not None and len(image.data) <= images.MAX_SEND
    with Pil.open(__import__("io").BytesIO(image.data)) as img:
        assert max(img.size) <= images.FIT_SIDE


def test_a_wide_image_is_downscaled_below_8000_pixels() -> None:
    image = from_bytes(png(9000, 10), "wide.png")
    with Pil.open(__import__("io").BytesIO(image.data or b"")) as img:
        assert max(img.size) <= images.MAX_SIDE


def test_a_small_image_is_sent_as_it_is() -> None:
    data = png()
    assert from_bytes(data).data == data


@pytest.mark.parametrize(
    ("media", "data", "said"),
    [
        ("image/png", "not base64!!", "not valid base64"),
        ("image/png", "", "no base64 data"),
        ("image/png", None, "no base64 data"),
        ("image/png", base64.b64encode(b"hello").decode(), "not a PNG, JPEG, GIF or WebP"),
        ("image/bmp", base64.b64encode(png()).decode(), "media type 'image/bmp'"),
        ("image/png", "A" * (images.MAX_READ * 2), "larger than 20 MB"),
    ],
)
def test_base64_from_a_client_is_strict(media, data, said) -> None:
    with pytest.raises(ImageRefused, match=said):
        from_base64(media, data)


def test_the_message_dict_round_trips_and_sends_image_url_parts() -> None:
    image = from_bytes(png(), "a.png")
    message = UserMessage(content="look", images=(image,))
    data = message_to_dict(message)
    assert data["images"][0]["sha256"] == image.sha256 and "data" in data["images"][0]
    back = message_from_dict(data)
    assert isinstance(back, UserMessage) and back.images == (image,)
    wire = to_wire("", [back])
    assert wire == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": image.data_url()}},
            ],
        }
    ]
    assert "images" not in message_to_dict(UserMessage(content="plain"))


def test_an_imported_image_whose_bytes_lie_keeps_only_its_name() -> None:
    image = from_bytes(png(), "a.png")
    forged = {**image.to_dict(), "data": base64.b64encode(b"\x89PNG\r\n\x1a\nnot the same").decode()}
    kept = from_dict(forged)
    assert kept is not None and kept.data is None and kept.name == "a.png"
    assert from_dict({"media_type": "text/html", "sha256": "0" * 64}) is None
    wire = to_wire("", [UserMessage(content="look", images=(kept,))])
    assert wire[0]["content"] == "look\n\n[image: a.png] (no longer stored)"
