"""An ACP prompt (content blocks) as the text flue sends, and what the transcript shows.

Text is taken as typed, `/skill args` and `@path` included, as every front end takes it. A resource
link to a file becomes an `@path` attachment (ui/attach.py: the same reading, limits and refusals);
an embedded resource (an editor's selection or unsaved buffer) is fenced in with its URI. The client
is untrusted: a link or `@path` is attached only from inside the session's workspace (its directory
and --add-dir), whatever the sandbox, and a deny rule on reading it still refuses it. An image
block (base64 `data`, `mimeType`) is checked as a file is (core/images.py); a broken one refuses the
prompt with one sentence.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlparse

from acp import RequestError

from flue_tui.config.text import lone_surrogate
from flue_tui.core.images import Image, ImageRefused, from_base64
from flue_tui.ui.attach import MAX_FILE_CHARS, attach, read_denied, with_images

MAX_PROMPT_CHARS = 2_000_000  # the whole prompt, embedded resources included


def _fence(body: str) -> str:
    longest = 2
    run = 0
    for ch in body:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * (longest + 1)


def _link_path(uri: str, cwd: str) -> str | None:
    """The relative `@path` mention for a file:// link (or a bare path), or None."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", "") or (parsed.netloc and parsed.netloc != "localhost"):
        return None
    path = unquote(parsed.path if parsed.scheme else uri)
    if not path or "\0" in path:
        return None
    full = os.path.normpath(os.path.join(cwd, path))
    rel = os.path.relpath(full, cwd)
    return rel.replace(" ", "\\ ")


def _embedded(resource: Any) -> str:
    uri = str(getattr(resource, "uri", "") or "")
    text = getattr(resource, "text", None)
    if not isinstance(text, str):
        mime = getattr(resource, "mime_type", None) or "binary data"
        return f"[{uri}: {mime}, not shown: flue passes only text to the model]"
    cut = len(text) > MAX_FILE_CHARS
    body = text[:MAX_FILE_CHARS] if cut else text
    fence = _fence(body)
    head = f"Contents of {uri}" + (f" (the first {MAX_FILE_CHARS} characters)" if cut else "") + ":"
    return f"{head}\n{fence}\n{body.rstrip(chr(10))}\n{fence}"


def _image(block: Any, n: int) -> Image:
    try:
        return from_base64(getattr(block, "mime_type", None), getattr(block, "data", None), f"image-{n}")
    except ImageRefused as exc:
        raise RequestError.invalid_params({"prompt": str(exc)}) from None


def prompt_text(blocks: list[Any], session: Any, roots: tuple[str, ...]) -> tuple[str, str | None, tuple[Image, ...]]:
    """(what is sent, what the transcript shows) for a `session/prompt`."""
    typed: list[str] = []
    mentions: list[str] = []
    embedded: list[str] = []
    images: list[Image] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            typed.append(str(block.text))
        elif kind == "resource_link":
            mention = _link_path(str(block.uri), session.cwd)
            if mention is not None:
                mentions.append("@" + mention)
            else:
                typed.append(f"[{block.name}: {block.uri}]")
        elif kind == "resource":
            embedded.append(_embedded(block.resource))
        elif kind == "image":
            images.append(_image(block, len(images) + 1))
        elif kind == "audio":
            raise RequestError.invalid_params({"prompt": "audio content is not supported by flue"})
    text = "\n".join(typed)
    if mentions:
        text = (text + "\n" if text else "") + " ".join(mentions)
    got = with_images(attach(text, session.cwd, roots=roots, denied=read_denied(session)), tuple(images), text)
    sent, display = got.text, got.display
    if embedded:
        sent = "\n\n".join([sent, *embedded]) if sent else "\n\n".join(embedded)
        display = (display or text) + "".join(f"\n  ⎿ embedded {_uri(b)}" for b in blocks if _uri(b))
    if not sent.strip() and not got.images:
        raise RequestError.invalid_params({"prompt": "the prompt is empty"})
    bad = lone_surrogate(sent)
    if bad is not None:
        raise RequestError.invalid_params({"prompt": f"the prompt is not valid Unicode (a lone surrogate at {bad})"})
    if len(sent) > MAX_PROMPT_CHARS:
        raise RequestError.invalid_params({"prompt": f"the prompt is longer than {MAX_PROMPT_CHARS:,} characters"})
    return sent, display if display != sent else None, got.images


def _uri(block: Any) -> str:
    if getattr(block, "type", None) != "resource":
        return ""
    return str(getattr(block.resource, "uri", "") or "")
