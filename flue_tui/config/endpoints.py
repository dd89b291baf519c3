"""Where a local model server is, from the environment: Ollama's address rules (no network here).

The config layer needs them to pick a default model; the model layer to reach the server.
"""

from __future__ import annotations

import os

DEFAULT_BASE = "http://127.0.0.1:11434"


def base_url(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """OLLAMA_API_BASE (litellm's), else OLLAMA_HOST (Ollama's: `host`, `host:port` or a URL)."""
    raw = (environ.get("OLLAMA_API_BASE") or environ.get("OLLAMA_HOST") or "").strip()
    if not raw:
        return DEFAULT_BASE
    if "://" not in raw:
        raw = f"http://{raw}"
    scheme, _, rest = raw.partition("://")
    host = rest.split("/", 1)[0]
    if host.startswith("0.0.0.0"):  # a bind address, as OLLAMA_HOST is often set for the server
        host = "127.0.0.1" + host[len("0.0.0.0") :]
    if ":" not in host.rsplit("]", 1)[-1]:
        host += ":11434"
    return f"{scheme}://{host}"
