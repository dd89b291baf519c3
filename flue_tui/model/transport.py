"""The direct path's HTTP client set-up, warmable in a thread before the first request.

An `httpx.AsyncClient` costs ~0.1 s of CPU the first time (the certificate bundle loaded into an
SSL context, httpcore's modules imported on first use), and the first prompt paid it on the event
loop, between Enter and its request. route.warm, at a front end's start, calls `warm()` in a
daemon thread, beside the session's start; `new_client` then reuses the context.
One context serves every client: it is what httpx builds for `verify=True` with `trust_env`
(SSL_CERT_FILE / SSL_CERT_DIR honoured), and an SSLContext may be shared between connections.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any

_lock = threading.Lock()
_context: Any = None


def httpx() -> Any:
    """httpx, imported without its command-line client: httpx's `__init__` imports `httpx._main`
    (click, pygments, rich's progress bars and tables, ~25 ms of CPU on the first request's path)
    whenever click is installed, as litellm's dependencies make it. A None in sys.modules is
    Python's way to make that one import fail, which httpx catches (`httpx.main` then says the CLI
    needs its extras); the entry goes again at once, so an explicit `import httpx._main` still works."""
    if "httpx" not in sys.modules:
        with _lock:
            if "httpx" not in sys.modules:
                blocked = "httpx._main" not in sys.modules
                if blocked:
                    sys.modules["httpx._main"] = None  # pyright: ignore[reportArgumentType]
                try:
                    import httpx as module
                finally:
                    if blocked and sys.modules.get("httpx._main", ...) is None:
                        del sys.modules["httpx._main"]
                return module
    import httpx as module

    return module


def ssl_context() -> Any:
    """The shared context (blocking the first time: call it in a thread to warm it)."""
    global _context
    if _context is None:
        http = httpx()
        with _lock:
            if _context is None:
                _context = http.create_ssl_context(verify=True, trust_env=True)
    return _context


def _no_certificates() -> Any:
    """For a plain-http endpoint (a local server: Ollama, llama.cpp, LM Studio, vLLM): no TLS
    connection is ever made (redirects are not followed), so the certificate bundle (~50 ms of
    CPU) is not loaded. The context verifies with no trusted certificate, so a TLS connection
    through it could only fail."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, check_hostname: the defaults


def warm(url: str) -> None:
    """Blocking (route.warm calls it in a thread): the context `url` needs, and the modules a first
    client and its first request import (httpcore's locks take anyio's asyncio backend)."""
    httpx().AsyncClient(verify=_verify(url))  # no connection is made
    try:
        importlib.import_module("anyio._backends._asyncio")
    except ImportError:
        pass


def _verify(url: str) -> Any:
    return _no_certificates() if url.startswith("http://") else ssl_context()


def new_client(timeout: float, url: str) -> Any:
    """A client for requests to `url`, the route's endpoint (model/route.py)."""
    http = httpx()
    return http.AsyncClient(timeout=http.Timeout(timeout), follow_redirects=False, trust_env=True, verify=_verify(url))
