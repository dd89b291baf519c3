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

from flue_tui.model.coalesce import coalesce

_lock = threading.Lock()
_context: Any = None


# Imported with httpx only to be skipped: its command-line client (click, pygments, rich's progress
# bars and tables, ~25 ms of CPU), and httpcore's HTTP/2 connections (h2, hpack, hyperframe, ~20 ms).
# A direct-path request is HTTP/1.1, and httpcore imports its HTTP/2 module again when a connection
# negotiates it (litellm's LITELLM_HTTP2), so nothing that asks for either is refused afterwards.
_SKIPPED = ("httpx._main", "httpcore._async.http2", "httpcore._sync.http2")


def httpx() -> Any:
    """httpx, imported without the modules in _SKIPPED. A None in sys.modules is Python's way to
    make an import fail, which httpx and httpcore catch (`httpx.main` then says the CLI needs its
    extras; httpcore's package-level HTTP/2 names become stand-ins no request reaches); the entries
    go again at once, so an explicit `import httpx._main` or httpcore's own import of its HTTP/2
    module still works."""
    if "httpx" not in sys.modules:
        with _lock:
            if "httpx" not in sys.modules:
                blocked = [name for name in _SKIPPED if name not in sys.modules]
                for name in blocked:
                    sys.modules[name] = None  # pyright: ignore[reportArgumentType]
                try:
                    import httpcore  # noqa: F401  (httpx imports it with its first client: here, while skipped)
                    import httpx as module
                finally:
                    for name in blocked:
                        if sys.modules.get(name, ...) is None:
                            del sys.modules[name]
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
    client = http.AsyncClient(
        timeout=http.Timeout(timeout), follow_redirects=False, trust_env=True, verify=_verify(url)
    )
    coalesce(client)  # a fast stream's socket reads, gathered (coalesce.py)
    return client


def failure(exc: BaseException) -> tuple[str, str]:
    """(kind, text) of a failed request, for direct_client.py to word, in process or from the relay:
    connect, transport (the connection broke), local (flue refused to put it on the wire: a header
    or address HTTP does not allow; the text is left out, it may hold the key), scheme, or other."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # anyio's task groups wrap the cause
        exc = exc.exceptions[0]
    http = sys.modules.get("httpx")
    text = f"{type(exc).__name__}: {exc}"
    if http is None:
        return "other", text
    if isinstance(exc, http.UnsupportedProtocol):
        return "scheme", str(exc)
    if isinstance(exc, (http.ConnectError, http.ConnectTimeout)):
        return "connect", text
    if isinstance(exc, http.LocalProtocolError):
        return "local", ""
    if isinstance(exc, http.TransportError):
        return "transport", text
    return "other", text
