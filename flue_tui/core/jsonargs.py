"""The model's tool-argument text as a Python object: the one place it is parsed, with a depth bound;
and `loads`, json.loads for any other untrusted JSON (a repository's settings, a hook's answer)."""

from __future__ import annotations

import json
from typing import Any

# Our tools take flat arguments; a bound far below Python's recursion limit keeps every later step
# (validation, json.dumps, asdict in the store, the UI) from recursing out of stack.
MAX_ARGUMENT_DEPTH = 100
TOO_DEEP = (
    f"Tool arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep; send them again as a flat JSON object."
)


def loads(text: str | bytes) -> Any:
    """json.loads, where nesting past Python's recursion limit is invalid JSON like any other
    (a JSONDecodeError), never a RecursionError that escapes every `except ValueError`."""
    try:
        return json.loads(text)
    except RecursionError:
        doc = text if isinstance(text, str) else ""
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """The model's argument text as an object, and a refusal when it cannot be used at all.
    Invalid JSON or a non-object gives {} (validation then says what is missing, as in Flue);
    nesting past MAX_ARGUMENT_DEPTH gives ({}, TOO_DEEP) instead of a RecursionError."""
    if not raw.strip():
        return {}, None
    try:
        parsed = json.loads(raw)
    except RecursionError:
        return {}, TOO_DEEP
    except ValueError:  # JSONDecodeError, or an integer past Python's digit limit
        return {}, None
    if _deeper_than(parsed, MAX_ARGUMENT_DEPTH):
        return {}, TOO_DEEP
    return (parsed if isinstance(parsed, dict) else {}), None


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether containers nest more than `limit` levels; iterative, so it cannot recurse itself."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
