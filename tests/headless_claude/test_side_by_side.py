"""Real Claude Code (the binary inside the claude-agent-sdk wheel) and flue, on the same scripted
conversations through the strict Anthropic stand-in: the fields a consumer reads agree.

Claude Code runs with a dummy key against the stand-in (ANTHROPIC_BASE_URL), a fresh HOME, no
telemetry or updates, thinking disabled (it enables thinking for Sonnet by default, and the
stand-in then insists on thinking blocks a scripted turn does not have), and IS_SANDBOX=1 (as
root it refuses bypassPermissions otherwise). It needs no network or login for this. The tests skip
when the binary is missing or cannot run here. The fields that differ by design are listed in
docs/headless.md ("Side by side with Claude Code")."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakellm import Call, Turn
from tests.fakellm.anthropic import FakeAnthropic

sdk = pytest.importorskip("claude_agent_sdk")
from tests.headless_claude.sdkrun import FLUE, TIMEOUT, needs_flue  # noqa: E402

CLAUDE = Path(sdk.__file__).parent / "_bundled" / "claude"
SCHEMA = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}


def _claude_runs() -> bool:
    if not os.access(CLAUDE, os.X_OK):
        return False
    try:
        out = subprocess.run([str(CLAUDE), "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "Claude Code" in out.stdout


pytestmark = [
    needs_flue,
    pytest.mark.skipif(not _claude_runs(), reason="the claude binary of claude-agent-sdk cannot run here"),
]


def _run(who: str, turns: list[Turn], tmp: Path, *extra: str) -> list[dict[str, Any]]:
    home, ws = tmp / f"home-{who}", tmp / f"ws-{who}"
    home.mkdir()
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\n")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-dummy",
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1",
        "FLUE_HOME": str(home / "flue"),
        "FLUE_RETRY_BASE_MS": "5",
    }
    with FakeAnthropic(turns) as llm:
        if who == "claude":
            env["ANTHROPIC_BASE_URL"] = llm.base_url
            cmd = [str(CLAUDE), "--thinking", "disabled"]
        else:
            env["ANTHROPIC_API_BASE"] = llm.base_url
            cmd = [str(FLUE)]
        cmd += ["-p", "look", "--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5"]
        cmd += ["--permission-mode", "bypassPermissions", *extra]
        out = subprocess.run(cmd, cwd=ws, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert lines and lines[-1]["type"] == "result", (who, out.stderr[-2000:])
    return lines


# What a consumer reads of a result: the SDK's ResultMessage fields, and the ones CI scripts test.
READ = ("subtype", "is_error", "num_turns", "stop_reason", "terminal_reason", "api_error_status")


def _same(claude: dict[str, Any], flue: dict[str, Any], *keys: str) -> None:
    assert {k: claude.get(k) for k in keys} == {k: flue.get(k) for k in keys}


def test_a_tool_conversation_reads_the_same(tmp_path):
    def turns(read: Call, bash: Call) -> list[Turn]:
        return [
            Turn(text="Looking.", calls=[read], usage=(50, 5)),
            Turn(calls=[bash], usage=(60, 6)),
            Turn(text="The answer is 42.", usage=(70, 7)),
        ]

    claude = _run(
        "claude",
        turns(
            Call("Read", {"file_path": str(tmp_path / "ws-claude" / "notes.txt")}), Call("Bash", {"command": "echo 42"})
        ),
        tmp_path,
    )
    flue = _run("flue", turns(Call("read", {"path": "notes.txt"}), Call("bash", {"command": "echo 42"})), tmp_path)
    _same(claude[-1], flue[-1], *READ, "result", "permission_denials")
    assert set(flue[-1]["usage"]) <= set(claude[-1]["usage"]) and flue[-1]["usage"]["service_tier"] == "standard"
    _same(claude[0], flue[0], "type", "subtype", "model", "permissionMode", "output_style")
    uses = [[m for m in lines if m["type"] == "user"] for lines in (claude, flue)]
    assert [len(u) for u in uses] == [2, 2]
    for c, f in zip(*uses, strict=True):
        assert c["message"]["content"][0]["tool_use_id"] == f["message"]["content"][0]["tool_use_id"]
        assert type(c["tool_use_result"]) is type(f["tool_use_result"])
        assert set(c["tool_use_result"]) == set(f["tool_use_result"])  # Read's {type, file}, Bash's stdout …
    assert set(uses[0][0]["tool_use_result"]["file"]) == set(uses[1][0]["tool_use_result"]["file"])
    assert uses[0][1]["tool_use_result"] == uses[1][1]["tool_use_result"]  # Bash: stdout "42", the same flags
    models = {m["message"]["model"] for lines in (claude, flue) for m in lines if m["type"] == "assistant"}
    assert models == {"claude-sonnet-4-5"}


def test_an_api_error_reads_the_same(tmp_path):
    bad = Turn(status=400, error_message="messages: an invalid request")
    claude = _run("claude", [bad, bad, bad, bad], tmp_path)
    flue = _run("flue", [bad], tmp_path)
    # stop_reason differs: Claude Code's comes from the synthetic "API Error" message it adds (stop_sequence).
    _same(claude[-1], flue[-1], *(k for k in READ if k != "stop_reason"))
    assert flue[-1]["subtype"] == "success" and flue[-1]["is_error"] is True and flue[-1]["api_error_status"] == 400


def test_a_json_schema_answer_reads_the_same(tmp_path):
    schema = json.dumps(SCHEMA)
    claude = _run("claude", [Turn(calls=[Call("StructuredOutput", {"answer": 42})])], tmp_path, "--json-schema", schema)
    flue = _run("flue", [Turn(calls=[Call("finish", {"answer": 42})])], tmp_path, "--json-schema", schema)
    _same(claude[-1], flue[-1], *READ, "result", "structured_output")
    assert flue[-1]["result"] == '{"answer":42}'


def test_max_turns_reads_the_same(tmp_path):
    claude = _run("claude", [Turn(calls=[Call("Bash", {"command": "true"})])], tmp_path, "--max-turns", "1")
    flue = _run("flue", [Turn(calls=[Call("bash", {"command": "true"})])], tmp_path, "--max-turns", "1")
    _same(claude[-1], flue[-1], "subtype", "is_error", "num_turns", "terminal_reason", "stop_reason")
    assert len(claude[-1]["errors"]) == len(flue[-1]["errors"]) == 1  # worded each its own way
