"""litellm's model map (prices, context windows, reasoning support) read as data, without importing
litellm: the JSON file its package ships, found by importlib, read once per process, each entry
parsed when first asked for (through mapindex.py's stored index; the whole map when there is none
that fits). The direct path
(direct_client.py) prices its turns and sizes its context from here; `tests/model/test_modelmap.py`
holds the cost equal to `litellm.completion_cost` on the same usage.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from typing import Any

from flue_tui.model import mapindex

MAP_FILE = "model_prices_and_context_window_backup.json"
_TIER = r"^input_cost_per_token_above_(\d+)k_tokens$"

_lock = threading.Lock()


class _Map:
    """The map's bytes and what was read of them: every entry once parsed whole, else those asked
    for, each found through the stored index (mapindex.py) and checked there."""

    def __init__(
        self, raw: bytes, entries: dict[str, Any], index: mapindex.Index | None, made: bytes | None = None
    ) -> None:
        self.raw = raw
        self.entries = entries
        self.index = index  # None: `entries` is the whole map
        self.made = made  # the stamp of the file `raw` came from (mapindex.stamp), to index it again

    def get(self, key: str) -> Any:
        if self.index is None or key in self.entries:
            return self.entries.get(key)
        try:
            offsets = self.index.get(key)
            if offsets is None:
                return None
            value = mapindex.entry_at(self.raw, key, offsets)
        except mapindex.Stale:  # an index that lies about these bytes: the map itself decides
            whole = _parsed(self.raw, self.made)
            self.entries, self.index = whole.entries, None
            return self.entries.get(key)
        self.entries[key] = value
        return value


_loaded: _Map | None = None


def _path() -> str | None:
    spec = importlib.util.find_spec("litellm")  # finds the package; does not import it
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        candidate = os.path.join(folder, MAP_FILE)
        if os.path.isfile(candidate):
            return candidate
    return None


def _parsed(raw: bytes, made: bytes | None) -> _Map:
    """The whole map parsed, its index stored for the next process (`made`: the stamp of the file
    the bytes came from; None, a file that changed while it was read: no index of it)."""
    try:
        entries, where = mapindex.scan(raw)
    except ValueError:
        return _Map(raw, {}, None)
    if where and made is not None:
        mapindex.save(where, made)
    return _Map(raw, entries, None)


def read(path: str | None) -> _Map:
    """The map at `path` (litellm's, or none): its index used when one fits, else parsed whole."""
    raw, made = b"", None
    if path is not None:
        try:
            with open(path, "rb") as f:
                before = os.fstat(f.fileno())
                raw = f.read()
                after = mapindex.stamp(os.fstat(f.fileno()))
        except OSError:
            raw = b""
        else:
            made = after if after == mapindex.stamp(before) and before.st_size == len(raw) else None
    index = mapindex.load(made) if raw and made is not None else None
    return _Map(raw, {}, index, made) if index is not None else _parsed(raw, made)


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
