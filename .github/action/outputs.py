"""The GitHub Action's helper (run.sh calls it with the Python that runs flue).

split ARGS                      the `args` input as shell words, NUL-separated (shlex: nothing runs)
session-id RESULT               the session id of flue's JSON result, if it is one flue writes
write RESULT SESSION_FILE CODE  the step outputs, GITHUB_OUTPUT's multi-line syntax, on stdout

Every output value goes through flue's own redaction of *_KEY / *_TOKEN / *_SECRET values (the
same as `flue sessions export`), so a key a model repeated never reaches the workflow's outputs.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import sys

from flue_tui.permissions.secrets import Redactor

SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def _result(path: str) -> dict:
    """The last JSON object flue printed (the result), or {} when it printed none (a start-up failure)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return {}
    for line in reversed(lines):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def _session_id(result: dict) -> str:
    value = result.get("session_id")
    return value if isinstance(value, str) and SESSION_ID.fullmatch(value) else ""


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _write(result: dict, session_file: str, code: int) -> str:
    redact = Redactor(os.environ)
    is_error = result.get("is_error") if isinstance(result.get("is_error"), bool) else True
    values = {
        "result": result.get("result"),
        "is_error": is_error or code != 0,
        "total_cost_usd": result.get("total_cost_usd"),
        "session_id": _session_id(result),
        "checkpoint": result.get("checkpoint"),
        "session_file": session_file,
        "exit_code": str(code),
    }
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


def main(argv: list[str]) -> int:
    if argv[:1] == ["split"] and len(argv) == 2:
        try:
            words = shlex.split(argv[1])
        except ValueError as exc:
            print(f"flue action: the args input cannot be read as shell words ({exc})", file=sys.stderr)
            return 2
        sys.stdout.write("".join(f"{w}\0" for w in words))
        return 0
    if argv[:1] == ["session-id"] and len(argv) == 2:
        print(_session_id(_result(argv[1])))
        return 0
    if argv[:1] == ["write"] and len(argv) == 4:
        sys.stdout.write(_write(_result(argv[1]), argv[2], int(argv[3])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
