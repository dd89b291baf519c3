"""What the real APIs refuse about image parts, in their words: OpenAI chat's `image_url` part (a
data URL with an image MIME type, in a user message) and Anthropic's `image` block (a base64
source whose bytes are the media type it names, under 5 MB). Each check returns the 400 message
or None."""

from __future__ import annotations

import base64
import binascii
from typing import Any

OPENAI_PARTS = ("text", "image_url", "input_audio", "refusal", "audio", "file")
ANTHROPIC_MEDIA = ("image/jpeg", "image/png", "image/gif", "image/webp")
ANTHROPIC_BLOCKS = (
    "document",
    "image",
    "redacted_thinking",
    "search_result",
    "server_tool_use",
    "text",
    "thinking",
    "tool_result",
    "tool_use",
    "web_search_tool_result",
)
ANTHROPIC_MAX = 5 * 1024 * 1024  # of base64 text
OPENAI_MAX = 20 * 1024 * 1024


def _kind(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _decode(data: Any) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True) if isinstance(data, str) and data else None
    except (binascii.Error, ValueError):
        return None


def openai_problem(body: dict[str, Any]) -> str | None:
    for n, message in enumerate(body.get("messages") or []):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for k, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind not in OPENAI_PARTS:
                return (
                    f"Invalid value: '{kind}'. Supported values are: 'text', 'image_url', 'input_audio', "
                    "'refusal', 'audio', and 'file'."
                )
            if kind != "image_url":
                continue
            where = f"messages[{n}].content[{k}].image_url"
            if message.get("role") != "user":
                return (
                    f"Image URLs are only allowed for messages with role 'user', but this message with role "
                    f"'{message.get('role')}' contains an image URL."
                )
            url = part.get("image_url", {}).get("url") if isinstance(part.get("image_url"), dict) else None
            if not isinstance(url, str):
                return f"Missing required parameter: '{where}.url'."
            if url.startswith(("http://", "https://")):
                continue
            head, _, data = url.partition(",")
            media = head.removeprefix("data:").removesuffix(";base64")
            if not head.startswith("data:") or not head.endswith(";base64") or media not in ANTHROPIC_MEDIA:
                return (
                    f"Invalid '{where}.url'. Expected a base64-encoded data URL with an image MIME type "
                    f"(e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type '{media}'."
                )
            raw = _decode(data)
            if raw is None or _kind(raw) is None:
                return "You uploaded an unsupported image. Please make sure your image is valid."
            if len(raw) > OPENAI_MAX:
                return f"Invalid '{where}.url': image size exceeds the 20 MB limit."
    return None


def anthropic_problem(where: str, role: str, block: dict[str, Any]) -> str | None:
    kind = block.get("type")
    if kind not in ANTHROPIC_BLOCKS:
        tags = ", ".join(f"'{t}'" for t in ANTHROPIC_BLOCKS)
        return f"{where}: Input tag '{kind}' found using 'type' does not match any of the expected tags: {tags}"
    if kind != "image":
        return None
    if role != "user":
        return f"{where}: Image blocks are only allowed in user messages"
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") not in ("base64", "url"):
        return f"{where}.image.source: Input tag found using 'type' does not match any of the expected tags: 'base64', 'url'"
    if source["type"] == "url":
        return None
    media = source.get("media_type")
    if media not in ANTHROPIC_MEDIA:
        return f"{where}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
    data = source.get("data")
    if isinstance(data, str) and len(data) > ANTHROPIC_MAX:
        return f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > {ANTHROPIC_MAX} bytes"
    raw = _decode(data)
    if raw is None:
        return f"{where}.image.source.base64.data: The image data is not valid base64"
    found = _kind(raw)
    if found is None:
        return f"{where}.image.source.base64.data: Could not process image"
    if found != media:
        return (
            f"{where}.image.source.base64.data: The image was specified using the {media} media type, "
            f"but the image appears to be a {found} image"
        )
    return None
