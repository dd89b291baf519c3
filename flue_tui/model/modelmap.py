"""litellm's model map (prices, context windows, reasoning support) read as data, without importing
litellm: the JSON file its package ships, found by importlib, read once per process. A process asks
for one model or two, so each entry is found in the map's bytes by its quoted key and only that
object is parsed; parsing all ~5,000 entries is left to a key the bytes cannot settle. The direct
path (direct_client.py) prices its turns and sizes its context from here;
`tests/model/test_modelmap.py` holds the cost equal to `litellm.completion_cost` on the same usage.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
from typing import Any

MAP_FILE = "model_prices_and_context_window_backup.json"
_TIER = r"^input_cost_per_token_above_(\d+)k_tokens$"
_SPACE = b" \t\r\n"
_ENTRY_BYTES = 16384

_lock = threading.Lock()


class _Map:
    """The map's bytes and the entries asked of them so far (`whole`: every entry, once parsed)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.entries: dict[str, Any] = {}
        self.whole = False

    def get(self, key: str) -> Any:
        if key not in self.entries and not self.whole:
            found = _found(self.raw, key)
            if found is _UNSETTLED:
                self._parse_whole()
            else:
                self.entries[key] = found
        return self.entries.get(key)

    def _parse_whole(self) -> None:
        try:
            parsed = json.loads(self.raw)
        except ValueError:  # also UnicodeDecodeError: a broken map prices nothing
            parsed = {}
        self.entries = parsed if isinstance(parsed, dict) else {}
        self.whole = True


_UNSETTLED = object()  # the bytes alone cannot say: the map is parsed whole


def _found(raw: bytes, key: str) -> Any:
    """The object under the top-level `key`, found by its quoted key: a place where the key is
    followed by `:` and `{`, after a `{` or `,`. None when there is no such place. Two or more
    places (a nested object by that name), a key JSON would escape, or a value that does not parse
    leave it to the whole map."""
    if not key.isascii() or not key.isprintable() or '"' in key or "\\" in key:
        return _UNSETTLED
    quoted = b'"' + key.encode() + b'"'
    places = []
    at = raw.find(quoted)
    while at >= 0:
        after = at + len(quoted)
        colon = after + len(raw[after : after + 64]) - len(raw[after : after + 64].lstrip(_SPACE))
        brace = colon + 1
        brace += len(raw[brace : brace + 64]) - len(raw[brace : brace + 64].lstrip(_SPACE))
        before = raw[max(0, at - 64) : at].rstrip(_SPACE)[-1:]
        if raw[colon : colon + 1] == b":" and raw[brace : brace + 1] == b"{" and before in (b"{", b","):
            places.append(brace)
        at = raw.find(quoted, after)
    if not places:
        return None
    if len(places) > 1:
        return _UNSETTLED
    for end in (places[0] + _ENTRY_BYTES, len(raw)):  # an entry is a few hundred bytes; rarely more
        try:
            value, _ = json.JSONDecoder().raw_decode(raw[places[0] : end].decode("utf-8", "replace"))
        except ValueError:
            continue
        return value
    return _UNSETTLED


_loaded: _Map | None = None


def _path() -> str | None:
    spec = importlib.util.find_spec("litellm")  # finds the package; does not import it
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        candidate = os.path.join(folder, MAP_FILE)
        if os.path.isfile(candidate):
            return candidate
    return None


def read(path: str | None) -> _Map:
    """The map at `path` (litellm's, or none: an empty map, which prices nothing)."""
    raw = b""
    if path is not None:
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except OSError:
            raw = b""
    return _Map(raw)


def _map() -> _Map:
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = read(_path())
    return _loaded


def info(model: str) -> dict[str, Any] | None:
    """The map's entry for `provider/name` (its own key, else the name litellm files it under)."""
    entries = _map()
    provider, _, name = model.partition("/")
    for key in (model, name) if name else (model,):
        entry = entries.get(key)
        if isinstance(entry, dict) and (key == model or entry.get("litellm_provider") == provider):
            return entry
    return None


def number(entry: dict[str, Any], key: str) -> float | None:
    value = entry.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _tier(entry: dict[str, Any], prompt: int) -> str:
    """The suffix of the price tier a prompt of `prompt` tokens falls in ("" for the base tier)."""
    best = 0
    for key in entry:
        match = re.match(_TIER, key)
        if match and prompt > int(match.group(1)) * 1000 and int(match.group(1)) > best:
            best = int(match.group(1))
    return f"_above_{best}k_tokens" if best else ""


def cost(model: str, fresh: int, output: int, cache_read: int, cache_write: int) -> float | None:
    """USD for one turn's tokens at the map's rates (the tier by the whole prompt, as litellm
    prices it); None when the map does not price the model."""
    entry = info(model)
    if entry is None:
        return None
    base_in, base_out = number(entry, "input_cost_per_token"), number(entry, "output_cost_per_token")
    if base_in is None or base_out is None:
        return None
    tier = _tier(entry, fresh + cache_read + cache_write)

    def rate(key: str, fallback: float) -> float:
        found = number(entry, key + tier) if tier else None
        if found is None:
            found = number(entry, key)
        return fallback if found is None else found

    rate_in = rate("input_cost_per_token", base_in)
    total = fresh * rate_in + output * rate("output_cost_per_token", base_out)
    total += cache_read * rate("cache_read_input_token_cost", rate_in)
    total += cache_write * rate("cache_creation_input_token_cost", rate_in)
    return total


def supports_reasoning(model: str) -> bool:
    """Whether to send an effort: as turn_params.can_reason decides it with litellm."""
    entry = info(model)
    return True if entry is None else bool(entry.get("supports_reasoning"))


def supports_vision(model: str) -> bool:
    """Whether the model takes images, as litellm's map says. A model the map does not know (a
    local server's) is given them: the provider decides, as it does for everything else of it."""
    entry = info(model)
    return True if entry is None else bool(entry.get("supports_vision"))


def no_vision(model: str) -> str:
    """The one sentence for a model that does not take images, said before any request."""
    return f"{model} does not take images (litellm's model map says it has no vision); pick a vision model with /model or --model."
