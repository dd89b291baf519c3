"""Images a user attaches to a prompt: the one place that decides what counts as an image, how big
one may be, and how it travels (the message dict, the OpenAI-shaped wire both model paths read).

* The type is the file's magic bytes, never its name: PNG, JPEG, GIF and WebP, the four every
  vision provider takes. A `.png` that is something else is refused.
* At most MAX_READ bytes are read; a bigger file is refused in one sentence, unread.
* Past what a provider accepts (Anthropic: 5 MB of base64 and 8000 px a side; OpenAI allows more)
  it is downscaled with Pillow (imported only then) to fit; what Pillow cannot decode is refused.
* In a message dict an image is `{name, media_type, sha256, size, data}` (data base64); the store
  keeps the bytes once per sha256 (store/images.py) and the dict without `data`.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import io
from dataclasses import dataclass
from typing import Any

MAX_READ = 20 * 1024 * 1024  # read bound: a bigger file is refused before it is read whole
MAX_SEND = 3_750_000  # raw bytes whose base64 stays under Anthropic's 5 MB per image
MAX_SIDE = 8000  # Anthropic's largest side in pixels
FIT_SIDE = 2048  # a downscaled image's longest side: more than any provider looks at
MAX_PIXELS = 100_000_000  # past this Pillow's header is a decompression bomb: refused
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class ImageRefused(ValueError):
    """One sentence saying why an image is not attached."""


@dataclass(frozen=True, slots=True)
class Image:
    """An image attached to a prompt: its type, digest and size, and its bytes when they are held."""

    media_type: str
    sha256: str
    size: int
    name: str = ""
    data: bytes | None = None  # None: a stored reference whose bytes are gone (an export without them)

    @property
    def label(self) -> str:
        """The chip every front end shows."""
        return f"[image {self.name or self.sha256[:12]} · {_kb(self.size)}]"

    def data_url(self) -> str:
        assert self.data is not None
        return f"data:{self.media_type};base64,{_b64(self.data)}"

    def to_dict(self, *, with_data: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "media_type": self.media_type, "sha256": self.sha256}
        out["size"] = self.size
        if with_data and self.data is not None:
            out["data"] = _b64(self.data)
        return out


@functools.lru_cache(maxsize=8)
def _b64(data: bytes) -> str:
    """Every request re-sends the history's images: each is encoded once, not once per turn."""
    return base64.b64encode(data).decode("ascii")


def _kb(size: int) -> str:
    return f"{max(1, round(size / 1024))} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


def sniff(data: bytes) -> str | None:
    """The media type by magic bytes, or None for anything but the four."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_like_image(name: str) -> bool:
    """A name a user means as an image (`@shot.png`): such a file is read as one, or refused as one."""
    return name.lower().rsplit(".", 1)[-1] in ("png", "jpg", "jpeg", "gif", "webp")


def from_bytes(data: bytes, name: str = "") -> Image:
    """The image to send for these bytes (downscaled when a provider would refuse it). Raises
    ImageRefused with the sentence to show."""
    shown = name or "the image"
    if len(data) > MAX_READ:
        raise ImageRefused(f"{shown} is larger than {MAX_READ // 1024 // 1024} MB; images are limited to that.")
    media_type = sniff(data)
    if media_type is None:
        raise ImageRefused(f"{shown} is not a PNG, JPEG, GIF or WebP image.")
    data = _fit(data, shown)
    media_type = sniff(data) or media_type
    return Image(media_type, hashlib.sha256(data).hexdigest(), len(data), name, data)


def _fit(data: bytes, shown: str) -> bytes:
    from PIL import Image as Pil  # lazily: only an attached image pays for Pillow

    # MAX_PIXELS below is the bound, checked before decoding; Pillow's own would print a
    # multi-line DecompressionBombWarning on stderr (over inline mode's screen) or raise past 2×.
    Pil.MAX_IMAGE_PIXELS = None
    try:
        with Pil.open(io.BytesIO(data)) as img:
            width, height = img.size
            if width * height > MAX_PIXELS:
                raise ImageRefused(f"{shown} is {width}×{height} pixels, too large to attach.")
            img.load()  # decodes it all: a truncated or corrupt file is refused here, not by the provider
            if len(data) <= MAX_SEND and max(width, height) <= MAX_SIDE:
                return data
            img.thumbnail((FIT_SIDE, FIT_SIDE))
            out = io.BytesIO()
            if img.mode in ("RGBA", "LA", "P"):  # transparency: PNG keeps it, when that fits
                img.save(out, "PNG", optimize=True)
            if out.tell() == 0 or out.tell() > MAX_SEND:
                out = io.BytesIO()
                img.convert("RGB").save(out, "JPEG", quality=85)
    except ImageRefused:
        raise
    except Exception as exc:  # Pillow raises many kinds for a broken file; each is the same refusal
        raise ImageRefused(f"{shown} could not be read as an image ({type(exc).__name__}).") from None
    if out.tell() > MAX_SEND:
        raise ImageRefused(f"{shown} is still over {MAX_SEND // 1_000_000} MB after downscaling; not attached.")
    return out.getvalue()


def from_base64(media_type: Any, data: Any, name: str = "") -> Image:
    """An image handed in as base64 (stream-json, ACP): strictly decoded, then checked as a file is."""
    if not isinstance(data, str) or not data:
        raise ImageRefused("the image has no base64 data.")
    if len(data) > MAX_READ * 4 // 3 + 4:
        raise ImageRefused(f"the image is larger than {MAX_READ // 1024 // 1024} MB; images are limited to that.")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageRefused("the image's data is not valid base64.") from None
    image = from_bytes(raw, name)
    if media_type not in MEDIA_TYPES:
        raise ImageRefused(f"the image's media type {str(media_type)[:40]!r} is not one of {', '.join(MEDIA_TYPES)}.")
    return image


def from_dict(raw: Any) -> Image | None:
    """A stored or imported image entry (untrusted: an export file); None when it is not one. Data
    that does not match its sha256 or type is dropped, leaving the reference."""
    if not isinstance(raw, dict):
        return None
    media_type, sha, size, name = raw.get("media_type"), raw.get("sha256"), raw.get("size"), raw.get("name")
    if media_type not in MEDIA_TYPES or not isinstance(sha, str) or len(sha) != 64:
        return None
    data = _checked(raw["data"], sha, media_type) if isinstance(raw.get("data"), str) else None
    return Image(
        media_type,
        sha,
        len(data) if data is not None else (size if isinstance(size, int) and size >= 0 else 0),
        name if isinstance(name, str) else "",
        data,
    )


@functools.lru_cache(maxsize=8)
def _checked(encoded: str, sha: str, media_type: str) -> bytes | None:
    """The bytes of a stored image when they are what it claims. Cached: a resume reads the same
    screenshot in every message that sent it (the store hands out one string per image)."""
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if hashlib.sha256(data).hexdigest() == sha and sniff(data) == media_type else None


def mention(images: tuple[Image, ...] | list[Image]) -> str:
    """What a text-only view (a compaction summary's input, an export, a model without the bytes)
    says in place of the images."""
    return " ".join(f"[image: {i.name or i.sha256[:12]}]" for i in images)
