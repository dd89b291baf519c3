"""Redaction of secret environment values from text that leaves the machine (`sessions export`)."""

from __future__ import annotations

import json
import os
import re
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


def encoded_forms(value: str) -> set[str]:
    """The ways `value` can appear in what an export writes: as is, JSON-escaped with and without
    ensure_ascii (`\\"`, `\\\\`, `\\u00e9`), and escaped twice (a JSON string inside a JSON
    string, e.g. a tool call's raw arguments in a JSON export)."""
    forms = {value}
    for _ in range(2):
        forms |= {json.dumps(f, ensure_ascii=ascii_only)[1:-1] for f in forms for ascii_only in (True, False)}
    return forms


class Redactor:
    """Replaces each secret value, in any of its encoded forms, with `[redacted NAME]`; longest
    first, so a value that contains another is replaced whole."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        names: dict[str, str] = {}
        for value, name in secret_values(environ).items():
            for form in encoded_forms(value):
                names.setdefault(form, name)
        self._names = names
        self._pattern = (
            re.compile("|".join(re.escape(f) for f in sorted(names, key=len, reverse=True))) if names else None
        )

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: f"[redacted {self._names[m.group(0)]}]", text)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace each secret value in `text` (raw or JSON-escaped) with `[redacted NAME]`."""
    return Redactor(environ)(text)
