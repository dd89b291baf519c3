"""The GitHub Action's step outputs (run.py writes them): flue's JSON result read back, and the
text GITHUB_OUTPUT takes.

Every output value goes through flue's own redaction of *_KEY / *_TOKEN / *_SECRET values (the
same as `flue sessions export`), so a key a model repeated never reaches the workflow's outputs.
NAMES is every output the step writes; action.yml declares each (tests/test_github_action.py).
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping

from flue_tui.permissions.secrets import Redactor

SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
NAMES = ("result", "is_error", "total_cost_usd", "session_id", "checkpoint", "session_file", "exit_code")


def result(stdout: str) -> dict:
    """The last JSON object flue printed (the result), or {} when it printed none (a start-up failure)."""
    for line in reversed(stdout.splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def session_id(result: dict) -> str:
    """The result's session id, if it is one flue writes (it names a file and goes on a command line)."""
    value = result.get("session_id")
    return value if isinstance(value, str) and SESSION_ID.fullmatch(value) else ""


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def github_output(result: dict, session_file: str, code: int, environ: Mapping[str, str]) -> str:
    """Every output in GITHUB_OUTPUT's multi-line syntax, each value redacted."""
    redact = Redactor(environ)
    is_error = result.get("is_error") if isinstance(result.get("is_error"), bool) else True
    values = {
        "result": result.get("result"),
        "is_error": is_error or code != 0,
        "total_cost_usd": result.get("total_cost_usd"),
        "session_id": session_id(result),
        "checkpoint": result.get("checkpoint"),
        "session_file": session_file,
        "exit_code": str(code),
    }
    assert tuple(values) == NAMES
    out = []
    for name, value in values.items():
        text = redact(_text(value))
        # A delimiter no model can have guessed: the result text can never end the value early
        # and set an output of its own.
        while True:
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            if delimiter not in text:
                break
        out.append(f"{name}<<{delimiter}\n{text}\n{delimiter}\n")
    return "".join(out)
