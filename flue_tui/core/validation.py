"""Argument coercion and validation with TypeBox's semantics and wording (flue-behaviour.md §4.2)."""

from __future__ import annotations

import json
import math
from typing import Any

_TYPE_NAMES = {"string": str, "boolean": bool, "object": dict, "array": list}


def _convert(value: Any, type_: str | None) -> Any:
    """TypeBox `Value.Convert`: best-effort coercion of scalars toward the declared type."""
    if type_ in ("number", "integer") and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return value
        if value.strip() and math.isfinite(number):
            return int(number) if number.is_integer() else number
    if type_ in ("number", "integer") and isinstance(value, bool):
        return int(value)
    if type_ == "boolean":
        if value in ("true", 1):
            return True
        if value in ("false", 0):
            return False
    if type_ == "string" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if type_ == "string" and isinstance(value, bool):
        return "true" if value else "false"
    return value


def _check(value: Any, schema: dict[str, Any], path: str, errors: list[tuple[str, str]]) -> None:
    type_ = schema.get("type")
    if type_ == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            errors.append((path, "must be number"))
            return
    elif type_ == "integer":
        if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
            errors.append((path, "must be integer"))
            return
    elif type_ in _TYPE_NAMES:
        if not isinstance(value, _TYPE_NAMES[type_]) or (type_ != "boolean" and isinstance(value, bool)):
            errors.append((path, f"must be {type_}"))
            return
    # The isinstance checks only narrow for the type checker: the type test above returned already.
    if type_ == "string" and isinstance(value, str) and "minLength" in schema and len(value) < schema["minLength"]:
        errors.append((path, f"must not have fewer than {schema['minLength']} characters"))
    if type_ == "object" and isinstance(value, dict):
        _check_object(value, schema, path, errors)
    if type_ == "array" and isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            _check(item, schema["items"], f"{path}.{i}" if path != "root" else str(i), errors)


def _check_object(value: dict[str, Any], schema: dict[str, Any], path: str, errors: list[tuple[str, str]]) -> None:
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            errors.append((name if path == "root" else f"{path}.{name}", f"must have required properties {name}"))
    for name, sub in props.items():
        if name in value:
            value[name] = _convert(value[name], sub.get("type"))
            _check(value[name], sub, name if path == "root" else f"{path}.{name}", errors)


def validate_arguments(tool_name: str, schema: dict[str, Any], args: Any) -> tuple[dict[str, Any] | None, str | None]:
    """Return (coerced args, None) or (None, Flue's `Validation failed…` text)."""
    original = json.dumps(args, indent=2, ensure_ascii=False)
    errors: list[tuple[str, str]] = []
    coerced = json.loads(json.dumps(args)) if isinstance(args, dict) else args
    if not isinstance(coerced, dict):
        errors.append(("root", "must be object"))
    else:
        _check_object(coerced, schema, "root", errors)
    if not errors:
        return coerced, None
    lines = "\n".join(f"  - {p}: {m}" for p, m in errors)
    return None, f'Validation failed for tool "{tool_name}":\n{lines}\n\nReceived arguments:\n{original}'
