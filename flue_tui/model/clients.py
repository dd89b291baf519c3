"""A model client for a model id: the direct path's or litellm's, as route.py decides. Only
runtime/wiring.py calls this (the one wiring point); tests call it to build either path."""

from __future__ import annotations

from typing import Any

from flue_tui.model.route import route


def client_for(model: str, *, transport: str | None = None, **options: Any) -> Any:
    """`options` are the clients' shared keyword arguments (api_base, idle_timeout, prices, ...)."""
    path = route(model, options.get("api_base"), transport, api_key=options.get("api_key"))
    if path.wire is not None:
        from flue_tui.model.direct_client import DirectClient

        return DirectClient(model, route=path, **options)
    from flue_tui.model.litellm_client import LiteLLMClient

    return LiteLLMClient(model, **options)
