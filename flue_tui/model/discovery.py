"""The models `/model` offers, gathered once for every front end: a local OpenAI-compatible
server's `GET {OPENAI_BASE_URL}/models`, Ollama's `GET /api/tags`, and the chat models litellm knows
for each provider whose key is set (keys.py decides that).

The two servers are asked at the same time, each with a short deadline, in daemon threads (a server
that never answers holds neither the picker nor flue's exit). What they answer is untrusted: the
body is capped, ids are kept as strings only, and an id with control characters or spaces is shown
escaped and cannot be chosen. A source that fails is one sentence in `notes`, never an exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flue_tui.config.endpoints import base_url as ollama_base
from flue_tui.model.keys import keyed_providers, openai_base

TIMEOUT_S = 1.5  # per server: a local server answers in milliseconds, a dead one should not be waited on
MAX_BYTES = 8 << 20  # a model list is kilobytes; a server sending more is not believed
MAX_IDS = 20_000  # per source; the picker filters, so thousands are fine, millions are an attack
MAX_ID_LEN = 200
LOCAL = "local server"
OLLAMA = "ollama"


@dataclass(frozen=True, slots=True)
class ModelChoice:
    id: str  # what /model ID would take: provider/model
    source: str  # LOCAL, OLLAMA, or the provider whose catalog listed it

    @property
    def shown(self) -> str:
        """The id as the screen may show it: control characters escaped, never sent to the terminal."""
        return "".join(c if c.isprintable() else repr(c)[1:-1] for c in self.id)

    @property
    def usable(self) -> bool:
        return 0 < len(self.id) <= MAX_ID_LEN and self.id.isprintable() and not any(c.isspace() for c in self.id)


@dataclass(frozen=True, slots=True)
class ModelChoices:
    current: str | None
    choices: tuple[ModelChoice, ...]  # local first, then Ollama, then the catalog; no duplicates
    notes: tuple[str, ...]  # one sentence per source that failed
    pending: bool = False  # litellm's catalog is still being read: more will come


class SourceError(Exception):
    """Why a source gave no list, as the end of a sentence."""


def _read_json(url: str, headers: dict[str, str], deadline: float) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 - the user's server
            body, size = [], 0
            while piece := response.read1(65536):
                size += len(piece)
                if size > MAX_BYTES:
                    raise SourceError(f"answered more than {MAX_BYTES >> 20} MB")
                if time.monotonic() > deadline:  # a server trickling bytes is cut off too
                    raise SourceError(f"no complete answer within {TIMEOUT_S:g} s")
                body.append(piece)
    except urllib.error.HTTPError as exc:
        raise SourceError(
            f"answered HTTP {exc.code}" + (" (is the API key right?)" if exc.code == 401 else "")
        ) from None
    except urllib.error.URLError as exc:
        raise SourceError(f"unreachable ({_reason(exc.reason)})") from None
    except TimeoutError:
        raise SourceError(f"no answer within {TIMEOUT_S:g} s") from None
    except (OSError, http.client.HTTPException) as exc:
        raise SourceError(f"unreachable ({_reason(exc)})") from None
    try:
        return json.loads(b"".join(body))
    except ValueError:
        raise SourceError("answered something that is not JSON") from None


def _reason(reason: object) -> str:
    if isinstance(reason, TimeoutError):
        return f"no answer within {TIMEOUT_S:g} s"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return str(reason).lower() or type(reason).__name__


def _ids(items: object, key: str) -> list[str]:
    if not isinstance(items, list):
        raise SourceError("answered something that is not a model list")
    return [item[key] for item in items[:MAX_IDS] if isinstance(item, dict) and isinstance(item.get(key), str)]


def local_ids(base: str, api_key: str | None, deadline: float) -> list[str]:
    """An OpenAI-compatible server's `GET /models` (`{"object": "list", "data": [{"id": …}]}`)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    data = _read_json(base.rstrip("/") + "/models", headers, deadline)
    return _ids(data.get("data") if isinstance(data, dict) else None, "id")


def ollama_ids(base: str, deadline: float) -> list[str]:
    """Ollama's installed models, `GET /api/tags` (`{"models": [{"name": "llama3.2:latest", …}]}`)."""
    data = _read_json(base.rstrip("/") + "/api/tags", {}, deadline)
    return _ids(data.get("models") if isinstance(data, dict) else None, "name")


async def _in_daemon_thread(fn: Callable[[], list[str]], timeout: float) -> list[str]:
    """fn() in a daemon thread, given up on after `timeout` (asyncio.to_thread's executor is
    joined at exit, so a hanging server would hold flue's quit)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[list[str]] = loop.create_future()

    def settle(value: list[str] | None, error: BaseException | None) -> None:
        if future.done():
            return
        future.set_exception(error) if error is not None else future.set_result(value or [])

    def run() -> None:
        try:
            value, error = fn(), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            value, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=run, name="flue-model-list", daemon=True).start()
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        raise SourceError(f"no answer within {TIMEOUT_S:g} s") from None


def catalog_providers(environ: Mapping[str, str] = os.environ) -> list[str]:
    """Providers whose key is set. OpenAI's catalog is left out when an OpenAI-compatible endpoint
    is set: its key and ids then belong to that server, whose own list is asked instead."""
    return [p for p in keyed_providers(environ) if not (p == "openai" and openai_base(environ))]


async def gather(current: str | None, environ: Mapping[str, str] = os.environ) -> ModelChoices:
    """Every source at once, the complete listing; what failed is a note."""
    return [listing async for listing in gather_steps(current, environ)][-1]


async def gather_steps(current: str | None, environ: Mapping[str, str] = os.environ) -> AsyncIterator[ModelChoices]:
    """The servers' listing as soon as they answered (with `pending` while litellm's catalog, which
    may wait on the library's import, is still being read), then the complete one."""
    deadline = time.monotonic() + TIMEOUT_S
    base, key, olla = openai_base(environ), environ.get("OPENAI_API_KEY"), ollama_base(dict(environ))
    named: list[tuple[str, str, Any]] = []
    if base:
        named.append((LOCAL, f"OpenAI-compatible server at {base}", lambda: local_ids(base, key, deadline)))
    named.append((OLLAMA, f"Ollama at {olla}", lambda: ollama_ids(olla, deadline)))
    catalog_task = asyncio.ensure_future(_catalog(environ))
    answers = await asyncio.gather(
        *(_in_daemon_thread(fn, TIMEOUT_S + 0.5) for _, _, fn in named), return_exceptions=True
    )
    found: list[ModelChoice] = []
    notes: list[str] = []
    for (source, label, _), answer in zip(named, answers, strict=True):
        if isinstance(answer, BaseException):
            notes.append(f"{label}: {answer if isinstance(answer, SourceError) else type(answer).__name__}")
        else:
            prefix = "openai/" if source == LOCAL else "ollama_chat/"
            found += [ModelChoice(prefix + i, source) for i in answer]
    if not catalog_task.done():
        yield _listing(current, found, notes, pending=True)
    catalog = (await asyncio.gather(catalog_task, return_exceptions=True))[0]
    if isinstance(catalog, BaseException):
        notes.append(f"The provider catalog could not be read: {type(catalog).__name__}")
    else:
        found += catalog
    yield _listing(current, found, notes, pending=False)


def _listing(current: str | None, found: list[ModelChoice], notes: list[str], *, pending: bool) -> ModelChoices:
    seen: set[str] = set()
    unique = [c for c in found if not (c.id in seen or seen.add(c.id))]
    if current and current not in seen:
        unique.insert(0, ModelChoice(current, "current"))
    return ModelChoices(current, tuple(unique), tuple(notes), pending)


async def _catalog(environ: Mapping[str, str]) -> list[ModelChoice]:
    providers = catalog_providers(environ)
    if not providers:
        return []
    from flue_tui.model.catalog import known_models
    from flue_tui.model.loader import aget_litellm

    await aget_litellm()  # the background import, if it is still running, in its daemon thread
    listing = await asyncio.to_thread(known_models, providers)
    return [ModelChoice(i, provider) for provider, ids in listing.items() for i in ids]
