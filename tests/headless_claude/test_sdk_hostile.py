"""A hostile or broken Agent SDK client on the raw control protocol: answers with ids flue never
sent, an SDK MCP server answering another request, a hook callback that never answers. Each is
one line on stderr at most; the session goes on and nothing hangs."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any

import pytest

from tests.fakellm import Call, Turn
from tests.headless_claude.sdkrun import FLUE, TIMEOUT, needs_flue

pytestmark = needs_flue


def test_wrong_ids_a_lying_mcp_server_and_a_silent_hook_do_not_hang_the_session(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "touch ran.txt"})]), Turn(text="after")])
    config = json.dumps({"mcpServers": {"evil": {"type": "sdk", "name": "evil"}}})
    proc = subprocess.Popen(
        [FLUE or "flue", "--input-format", "stream-json", "--output-format", "stream-json", "--model", "openai/fake"]
        + ["--permission-mode", "bypassPermissions", "--mcp-config", config],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=flue_env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(TIMEOUT, proc.kill)  # a hung flue fails the test, not the suite
    watchdog.start()

    def send(obj: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(obj) + "\n")
        proc.stdin.flush()

    hooks = {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["h0"], "timeout": 1}]}
    send({"type": "control_request", "request_id": "init", "request": {"subtype": "initialize", "hooks": hooks}})
    send({"type": "control_response", "response": {"subtype": "success", "request_id": "flue_req_999"}})
    send({"type": "user", "message": {"role": "user", "content": "go"}})
    out: list[dict[str, Any]] = []
    try:
        while line := proc.stdout.readline():
            msg = json.loads(line)
            out.append(msg)
            if msg["type"] == "result":
                break
            if msg["type"] != "control_request":
                continue
            request = msg["request"]
            if request["subtype"] == "mcp_message":  # answers another request's id
                rid = request["message"].get("id")
                wrong = {"jsonrpc": "2.0", "id": (rid or 0) + 1000, "result": {}}
                body = {"mcp_response": wrong}
                send(
                    {
                        "type": "control_response",
                        "response": {"subtype": "success", "request_id": msg["request_id"], "response": body},
                    }
                )
            # hook_callback: never answered
        proc.stdin.close()
        proc.stdout.read()
        assert proc.stderr is not None
        stderr = proc.stderr.read()
        proc.wait(timeout=TIMEOUT)
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == 0, stderr
    assert out[-1]["type"] == "result" and out[-1]["result"] == "after"
    assert (tmp_path / "ran.txt").exists()  # the silent hook timed out; the call went on
    asked = [
        m["request_id"] for m in out if m["type"] == "control_request" and m["request"]["subtype"] == "hook_callback"
    ]
    cancelled = [m["request_id"] for m in out if m["type"] == "control_cancel_request"]
    assert asked and set(asked) <= set(cancelled)
    assert "Traceback" not in stderr
    assert any("PreToolUse SDK hook h0" in line and "no answer within 1s" in line for line in stderr.splitlines())
    evil = [line for line in stderr.splitlines() if "evil" in line]
    assert len(evil) == 1 and "answered another request" in evil[0], stderr


def test_every_user_line_flue_cannot_take_gets_an_error_result_in_its_place(fakellm, flue_env, tmp_path):
    """An SDK client counts one result per user message: a line over the bound, one that is not
    UTF-8, one whose prompt is refused each get an error result saying why, in order; a control
    request that is not UTF-8 gets its error answer; the run goes on with the next line."""
    from flue_tui.config.text import MAX_LINE_BYTES

    parser = pytest.importorskip("claude_agent_sdk._internal.message_parser")
    fakellm.script([Turn(text="answer one"), Turn(text="answer two")])

    def user(content: str) -> bytes:
        return json.dumps({"type": "user", "message": {"role": "user", "content": content}}).encode() + b"\n"

    huge = user("x" * (MAX_LINE_BYTES + 10))
    lines = [
        user("first").replace(b"first", b"caf\xe9"),  # not UTF-8
        user("fine one"),
        huge,
        b'{"type": "control_request", "request_id": "r1", "request": {"subtype": "interrupt", "x": "\xff"}}\n',
        user("lone \ud800 surrogate"),
        user("fine two"),
    ]
    argv = [FLUE or "flue", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
    proc = subprocess.run(
        [*argv, "--model", "openai/fake"],
        input=b"".join(lines),
        capture_output=True,
        cwd=tmp_path,
        env=flue_env,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    results = [m for m in out if m["type"] == "result"]
    assert [(r["is_error"], r["subtype"]) for r in results] == [
        (True, "error_during_execution"),
        (False, "success"),
        (True, "error_during_execution"),
        (True, "error_during_execution"),
        (False, "success"),
    ]
    reasons = [r["result"] for r in results]
    assert reasons[0] == "A stdin line is not UTF-8 text (byte 0xe9 at offset 60); ignored."
    assert reasons[2] == (
        f"A stdin line of {len(huge):,} bytes was ignored; the most flue reads is {MAX_LINE_BYTES:,} bytes a line."
    )
    assert reasons[3].startswith("A user message was ignored: ") and "lone surrogate U+D800" in reasons[3]
    assert [reasons[1], reasons[4]] == ["answer one", "answer two"]
    assert all(r["errors"] == [r["result"]] for r in results if r["is_error"])
    for r in results:
        assert isinstance(parser.parse_message(r), parser.ResultMessage)
    answer = next(m for m in out if m["type"] == "control_response")["response"]
    assert answer["request_id"] == "r1" and answer["subtype"] == "error" and "not UTF-8" in answer["error"]
    assert [r["messages"][-1]["content"] for r in fakellm.requests] == ["fine one", "fine two"]
