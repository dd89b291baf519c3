"""Redaction of secret environment values from text that leaves the machine (`sessions export`)."""

from __future__ import annotations

import os
from collections.abc import Mapping

SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET")
# Shorter values are too likely to occur by chance ("1", "true") to be replaced everywhere.
MIN_SECRET_LEN = 6


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """{value: variable name} for every variable whose name ends in _KEY, _TOKEN or _SECRET."""
    env = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for name, value in env.items():
        if name.upper().endswith(SECRET_SUFFIXES) and len(value.strip()) >= MIN_SECRET_LEN:
            found.setdefault(value.strip(), name)
    return found


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace each secret value in `text` with `[redacted NAME]` (longest values first, so a value
    that contains another is replaced whole)."""
    for value, name in sorted(secret_values(environ).items(), key=lambda kv: -len(kv[0])):
        if value in text:
            text = text.replace(value, f"[redacted {name}]")
    return text
