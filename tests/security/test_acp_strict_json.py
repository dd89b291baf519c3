"""A hostile ACP client's NaN and Infinity (Python's json reads them, JSON has none): before, the
invalid-params answer echoed them back as bare `NaN`, a line no strict JSON parser of the editor
reads. Now such a line is a parse error, and every line flue writes is strict JSON."""

from __future__ import annotations

import json
import subprocess

from tests.acp.client import FLUE, LIMIT, agent_env
from tests.acp.test_acp_hostile import _lines


def _strict(line: bytes) -> object:
    def refuse(word: str) -> object:
        raise ValueError(f"{word} in flue's output")

    return json.loads(line, parse_constant=refuse)


def test_nan_and_infinity_are_parse_errors_and_stdout_stays_strict_json(fakellm, flue_env, tmp_path):
    stdin = _lines(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        b'{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cwd":NaN}}',
        b'{"jsonrpc":"2.0","id":3,"method":"session/list","params":{"cursor":-Infinity}}',
        {"jsonrpc": "2.0", "id": 4, "method": "session/list", "params": {}},
    )
    assert FLUE is not None
    proc = subprocess.run(
        [FLUE, "--acp", "--model", "openai/fake"],
        input=stdin,
        capture_output=True,
        cwd=tmp_path,
        env=agent_env(flue_env),
        timeout=LIMIT,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    answers = [_strict(line) for line in proc.stdout.splitlines()]
    by_id = {a["id"]: a for a in answers if isinstance(a, dict) and a.get("id") is not None}
    assert 2 not in by_id and 3 not in by_id
    assert [a["error"]["code"] for a in answers if isinstance(a, dict) and a.get("id") is None] == [-32700, -32700]
    assert "sessions" in by_id[4]["result"]  # reading went on
