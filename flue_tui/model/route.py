"""Which path a model's requests take, decided here once: flue's own HTTP path for the two wire
formats most users speak (OpenAI chat completions, Anthropic Messages), litellm for the rest.

The direct path (direct_client.py) never imports litellm: a `flue -p` turn or the app's first
prompt costs what the wire costs. litellm stays for every other provider (Gemini, Bedrock, Vertex,
Ollama's native API, OpenRouter, Groq, ...), for what the direct path does not speak (Anthropic
OAuth tokens, OpenAI's reasoning models, which litellm rewrites), and when the user asks for it:
`transport = "litellm"` in config.toml's `[model]`, or FLUE_TRANSPORT=litellm (docs/models.md).
`flue doctor` names the route; the app's first prompt waits for litellm only on a litellm route.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from flue_tui.core import providers
from flue_tui.model.keys import openai_base, provider_of

Wire = Literal["openai", "anthropic"]
TRANSPORTS = ("auto", "litellm")
OPENAI_API = providers.provider("openai").host
ANTHROPIC_API = providers.provider("anthropic").host
ANTHROPIC_BASE_VARS = ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL")  # both spellings litellm reads
# OpenAI models litellm rewrites requests for (max_completion_tokens, dropped sampling params):
# left to litellm rather than copied.
_OPENAI_REWRITTEN = re.compile(r"^(o\d|gpt-5|codex|computer-use|gpt-realtime|gpt-audio|gpt-4o-(audio|realtime))")


@dataclass(frozen=True, slots=True)
class Route:
    """`wire` None: litellm. Else where flue sends the request itself, and the key it sends."""

    wire: Wire | None
    url: str = ""
    why: str = ""  # for `flue doctor`: why litellm, when it is

    @property
    def label(self) -> str:
        if self.wire is None:
            return f"litellm ({self.why})" if self.why else "litellm"
        return f"direct ({'OpenAI chat completions' if self.wire == 'openai' else 'Anthropic Messages'}, {self.url})"


def forced_litellm(transport: str | None) -> bool:
    """Settings.transport: config.toml's `transport` (or `[model] transport`), or FLUE_TRANSPORT."""
    return (transport or "auto") == "litellm"


def route(
    model: str,
    api_base: str | None = None,
    transport: str | None = None,
    environ: Mapping[str, str] = os.environ,
    api_key: str | None = None,
) -> Route:
    """The one decision of which path `model` takes (see the module docstring)."""
    if forced_litellm(transport):
        return Route(None, why="transport = litellm")
    provider, _, name = model.partition("/")
    if not name:
        return Route(None, why="no provider in the model id")
    if provider == "openai":
        if _OPENAI_REWRITTEN.match(name):
            return Route(None, why="an OpenAI reasoning model, whose requests litellm rewrites")
        base = (api_base or openai_base(environ) or OPENAI_API).rstrip("/")
        return Route("openai", f"{base}/chat/completions")
    if provider == "anthropic":
        key = api_key or environ.get("ANTHROPIC_API_KEY", "")
        if not key or key.startswith("sk-ant-oat"):
            return Route(None, why="Anthropic without an ANTHROPIC_API_KEY (OAuth or workload identity)")
        base = (api_base or next((environ[v] for v in ANTHROPIC_BASE_VARS if environ.get(v)), ANTHROPIC_API)).rstrip(
            "/"
        )
        return Route("anthropic", base if base.endswith("/v1/messages") else f"{base}/v1/messages")
    return Route(None, why=f"{provider_of(model)} is served through litellm")


def needs_litellm(model: str | None, api_base: str | None, transport: str | None) -> bool:
    """Whether `model`'s requests go through litellm (and a front end should import it early)."""
    return bool(model) and route(model or "", api_base, transport).wire is None


def warm(model: str | None, api_base: str | None, transport: str | None) -> None:
    """Start importing litellm in the background when `model` needs it, so its first prompt does
    not wait for it; a direct-path model never loads it (idle memory, start-up CPU), its HTTP client
    set-up is warmed instead (transport.py)."""
    if needs_litellm(model, api_base, transport):
        from flue_tui.model.loader import warm_in_background

        warm_in_background()
    elif model:
        url = route(model, api_base, transport).url
        threading.Thread(target=_warm_direct, args=(model, url), name="flue-http-warm", daemon=True).start()


def beside(model: str | None, api_base: str | None, transport: str | None) -> None:
    """For a front end with a UI, before it imports the UI: a direct-path model's HTTP client starts
    in a process of its own (relay.py), on the core the UI leaves free."""
    if model and not needs_litellm(model, api_base, transport):
        from flue_tui.model import relay

        relay.start(route(model, api_base, transport).url)


def _warm_direct(model: str, url: str) -> None:
    from flue_tui.model import modelmap, relay, transport

    if relay.current() is None:  # the relay, when it runs, holds the client
        transport.warm(url)
    modelmap.info(model)  # the map (a large JSON file) the first request's max_tokens is read from


def ready(model: str | None, api_base: str | None, transport: str | None) -> bool:
    """Whether a prompt for `model` can go now: it needs no litellm, or litellm has loaded."""
    from flue_tui.model.loader import is_loaded

    return not needs_litellm(model, api_base, transport) or is_loaded()
