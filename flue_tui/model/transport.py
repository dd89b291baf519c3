"""The direct path's HTTP client set-up, warmable in a thread before the first request.

An `httpx.AsyncClient` costs ~0.1 s of CPU the first time (the certificate bundle loaded into an
SSL context, httpcore's modules imported on first use), and the first prompt paid it on the event
loop, between Enter and its request. `warm_in_background()` (route.warm, at a front end's start)
does both in a daemon thread, beside the session's start; `new_client` then reuses the context.
One context serves every client: it is what httpx builds for `verify=True` with `trust_env`
(SSL_CERT_FILE / SSL_CERT_DIR honoured), and an SSLContext may be shared between connections.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_context: Any = None


def ssl_context() -> Any:
    """The shared context (blocking the first time: call it in a thread to warm it)."""
    global _context
    if _context is None:
        with _lock:
            if _context is None:
                import httpx

                context = httpx.create_ssl_context(verify=True, trust_env=True)
                httpx.AsyncClient(verify=context)  # imports what a first client imports; no connection made
                _context = context
    return _context


def warm_in_background() -> None:
    if _context is None:
        threading.Thread(target=ssl_context, name="flue-http-warm", daemon=True).start()


def new_client(timeout: float) -> Any:
    import httpx

    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=True, verify=ssl_context()
    )
