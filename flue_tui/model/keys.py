"""Is an API key needed, and which variable holds it: decided here once, without importing litellm.

The startup warning (ui/keys.py), `flue doctor`, the `/model` picker (discovery.py) and the request
itself (litellm_client.py) all ask `key_need`, so they agree on every case: Ollama needs no key; an
explicit `api_base`, or for OpenAI `OPENAI_BASE_URL`/`OPENAI_API_BASE`, points at an endpoint that
may be keyless (a local OpenAI-compatible server), so a missing key is not an error there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from flue_tui.core import providers
from flue_tui.model.ollama import is_ollama

OPENAI_BASE_VARS = ("OPENAI_BASE_URL", "OPENAI_API_BASE")  # both spellings litellm and the SDK read


def provider_of(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else ""


def key_var(model: str) -> str:
    return providers.key_var(provider_of(model) or "openai")


def openai_base(environ: Mapping[str, str] = os.environ) -> str | None:
    return next((environ[v] for v in OPENAI_BASE_VARS if environ.get(v)), None)


@dataclass(frozen=True, slots=True)
class KeyNeed:
    """Whether a model needs an API key, which variable holds it, and whether it is set."""

    provider: str  # "openai" when the model names none
    var: str  # the variable that would hold the key; "" when none is ever needed (Ollama)
    present: bool  # that variable is set
    base: str | None  # the endpoint that makes the key optional, if any

    @property
    def missing(self) -> bool:
        """A key is needed and not set: say so before the first request fails."""
        return bool(self.var) and not self.present and self.base is None

    @property
    def well_known(self) -> bool:
        """Its key lives in one documented variable (core/providers.py), so naming the variable helps."""
        return bool(providers.provider(self.provider).key_var)


def key_need(model: str, api_base: str | None = None, environ: Mapping[str, str] = os.environ) -> KeyNeed:
    provider = provider_of(model) or "openai"
    if is_ollama(model):
        return KeyNeed(provider, "", False, api_base)
    var = key_var(model)
    base = api_base or (openai_base(environ) if provider == "openai" else None)
    return KeyNeed(provider, var, bool(environ.get(var)), base)


def keyed_providers(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The well-known providers (core/providers.py's keyed rows) whose API key is set."""
    return [row.name for row in providers.KEYED if environ.get(row.key_var)]


def configured_providers(environ: Mapping[str, str] = os.environ) -> list[str]:
    """Providers whose API key is set, plus `openai` when an OpenAI-compatible endpoint is."""
    found = keyed_providers(environ)
    if openai_base(environ) and "openai" not in found:
        found.append("openai")
    return found
