"""Ollama without setup: its address from OLLAMA_HOST (or the default), no key, and a real num_ctx.

litellm reads only OLLAMA_API_BASE, and its key check calls the model unusable without it; Ollama
itself (and its CLI) reads OLLAMA_HOST. Ollama also loads a model with a small default context
(2-4k tokens) unless the request's options say `num_ctx`, and then silently drops the start of a
coding session's prompt, so every request carries one: the user's --context-window, else the
Modelfile's num_ctx, else the model's trained length capped at DEFAULT_CAP (memory grows with it).
"""

from __future__ import annotations

import json
import re

DEFAULT_CAP = 32768
MAX_SHOW_BYTES = 4 << 20  # /api/show answers in kilobytes; a server sending more is not believed
PROVIDERS = ("ollama", "ollama_chat")


def is_ollama(model: str) -> bool:
    return model.split("/", 1)[0] in PROVIDERS


def chat_model(model: str) -> str:
    """`ollama/x` goes to /api/generate in litellm, which has no tool messages; /api/chat has."""
    return "ollama_chat/" + model.split("/", 1)[1] if model.startswith("ollama/") else model


def _show(base: str, name: str, timeout: float) -> dict:
    import urllib.request  # here: with http.client and email it would weigh on every start, not just Ollama's

    request = urllib.request.Request(
        f"{base.rstrip('/')}/api/show",
        data=json.dumps({"model": name}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - local server
        data = json.loads(response.read(MAX_SHOW_BYTES + 1)[:MAX_SHOW_BYTES])  # cut short: not JSON, refused
    return data if isinstance(data, dict) else {}


def context_length(base: str, model: str, timeout: float = 3.0) -> int | None:
    """The num_ctx to send for `model`: the Modelfile's, else the trained length capped; None when
    the server does not answer (the request then fails with a clear connection error anyway)."""
    import http.client

    try:
        info = _show(base, model.split("/", 1)[-1], timeout)
    except (OSError, ValueError, http.client.HTTPException):
        return None
    params = info.get("parameters")
    match = re.search(r"^\s*num_ctx\s+(\d{1,9})\s*$", params, re.MULTILINE) if isinstance(params, str) else None
    if match and int(match.group(1)) > 0:
        return int(match.group(1))
    details = info.get("model_info")
    trained = (
        [
            v
            for k, v in details.items()
            if isinstance(k, str)
            and k.endswith(".context_length")
            and isinstance(v, int)
            and not isinstance(v, bool)
            and v > 0
        ]
        if isinstance(details, dict)
        else []
    )
    return min(trained[0], DEFAULT_CAP) if trained else None
