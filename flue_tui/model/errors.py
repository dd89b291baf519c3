"""A provider failure as one readable sentence with its status code, never the request it carried.

litellm's exception text stacks prefixes ("litellm.BadRequestError: AnthropicException - ") over
the provider's raw body, sometimes as a Python bytes literal, and some of its local errors append
the whole message list (system prompt included). We keep the provider's own message and drop the rest.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from flue_tui.core import providers

_PREFIX = r"^\s*(?:litellm\.\w+:|\w+(?:Error|Exception):|\w+Exception\s*-|-)\s*"
# Where litellm starts echoing the request back; nothing after these is the provider's message.
_DUMP_MARKERS = (
    "Received Messages",
    "Received messages",
    "messages=[",
    "messages: [",
    "Received Model Group",
    "'messages':",
    '"messages":',
    "Request body:",
    "\nTraceback",
)
MAX_CHARS = 600


def _strip_prefixes(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, re.sub(_PREFIX, "", text, count=1)
    return text.strip()


def _body(text: str) -> Any:
    """The JSON error body inside the text (possibly inside a bytes literal), or None."""
    literal = re.search(r"""b(['"]).*\1""", text, re.DOTALL)
    if literal:
        try:
            text = ast.literal_eval(literal.group(0)).decode("utf-8", "replace")
        except (ValueError, SyntaxError):
            pass
    start = text.find("{")
    if start < 0:
        return None
    try:
        data, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _from_body(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """(message, kind) from Anthropic, OpenAI, Gemini and Ollama error bodies."""
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message") or error.get("msg")
        kind = error.get("type") or error.get("status") or error.get("code")
        return (str(message) if message else None), (str(kind) if kind else None)
    if isinstance(error, str):
        return error, None
    message = data.get("message") or data.get("detail")
    return (str(message) if message else None), None


_TRANSPORT_NOISE = r"\s*ssl:(?:<[^>]*>|default|None)"


# A provider's text is untrusted: no terminal control sequences, and one line.
_CONTROL = r"\x1b\[[0-?]*[ -/]*[@-~]|[\x00-\x1f\x7f-\x9f]+"


def without_request(text: str) -> str:
    text = re.sub(_TRANSPORT_NOISE, "", text)  # aiohttp's "Cannot connect to host h:p ssl:<SSLContext …>"
    cut = min((i for i in (text.find(m) for m in _DUMP_MARKERS) if i > 0), default=len(text))
    text = text[:cut].rstrip(" ,;:.\n") if cut < len(text) else text
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS].rstrip() + "…"


# A connection that broke mid-reply, as aiohttp (litellm's transport) or httpx (the direct path's)
# words it: Python reprs of transport internals. Both paths say it in one sentence instead.
_CUT = (
    r"(?i)"
    r"Response payload is not completed|TransferEncodingError|Connection reset by peer|Server disconnected"
    r"|peer closed connection|RemoteProtocolError|incomplete chunked read|ReadError|ClientPayloadError"
)
CUT_MESSAGE = "Connection lost: the provider closed the connection before the reply was complete"


def cut_connection(text: str) -> bool:
    return bool(re.search(_CUT, text))


def made_locally(exc: BaseException) -> bool:
    """litellm dresses its own refusals (e.g. unparseable tool arguments) as provider errors with a
    stand-in request to https://litellm.ai; so does it dress real provider errors, which however carry the
    provider's JSON body (`readable` tells them apart by that)."""
    request = getattr(exc, "request", None)
    try:
        return "litellm.ai" in str(getattr(request, "url", "") or "")
    except Exception:
        return False


_HTML = r"(?i)<!doctype html|<html[\s>]"
_TITLE = r"(?is)<title[^>]*>(.*?)</title>"
_TAG = r"<[^>]*>"


def _html_text(text: str) -> str:
    """A proxy's or gateway's HTML error page as its title (else its text without tags)."""
    if not re.search(_HTML, text):
        return text
    title = re.search(_TITLE, text)
    return (title.group(1) if title else re.sub(_TAG, " ", text)).strip() or "an HTML error page"


def readable(raw: str, *, provider: str = "", status: int | None = None, local: bool = False) -> str:
    """`Anthropic returned 400 (invalid_request_error): messages: roles must alternate…`."""
    text = _html_text(_strip_prefixes(raw or ""))
    kind = None
    data = _body(text)
    if data is not None:
        message, kind = _from_body(data)
        if message:
            text = message
    text = without_request(_strip_prefixes(text))
    text = " ".join(re.sub(_CONTROL, " ", text).split()) or "no details"
    if local and data is None:  # a provider's refusal carries its JSON error body; litellm's own does not
        return f"litellm refused to send the request: {text}"
    if status is None:
        return text
    who = providers.provider(provider).label if provider else "The provider"
    return f"{who} returned {status}{f' ({kind})' if kind and kind != str(status) else ''}: {text}"
