"""The Claude Agent SDK (PyPI claude-agent-sdk) driving the real `flue` script as its CLI, against
the scripted server: its own transport, control protocol and message parser, no wrapper."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.fakellm import Call, Turn

sdk = pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import (  # noqa: E402
    AssistantMessage,
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)

from tests.headless_claude.sdkrun import FLUE, TIMEOUT, needs_flue  # noqa: E402
from tests.headless_claude.sdkrun import collect as _collect  # noqa: E402
from tests.headless_claude.sdkrun import options as _options  # noqa: E402
from tests.headless_claude.sdkrun import run as _run  # noqa: E402

pytestmark = needs_flue


def test_query_runs_a_multi_tool_session(fakellm, flue_env, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\n")
    fakellm.script(
        [
            Turn(text="Looking.", calls=[Call("read", {"path": "notes.txt"}), Call("read", {"path": "missing.txt"})]),
            Turn(calls=[Call("bash", {"command": "echo 42"})]),
            Turn(text="The answer is 42.", usage=(100, 7)),
        ]
    )
    stderr: list[str] = []
    opts = _options(
        flue_env,
        tmp_path,
        permission_mode="bypassPermissions",
        max_turns=5,
        allowed_tools=["Read", "Bash"],
        stderr=stderr.append,
    )
    messages = _run(_collect(query(prompt="look around", options=opts)))
    assert stderr == []  # the SDK always passes --verbose: no progress lines on stderr
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["permissionMode"] == "bypassPermissions" and init.data["model"] == "openai/fake"
    uses = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert [(u.name, u.input) for u in uses] == [
        ("read", {"path": "notes.txt"}),
        ("read", {"path": "missing.txt"}),
        ("bash", {"command": "echo 42"}),
    ]
    results = {
        b.tool_use_id: b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    }
    assert results[uses[0].id].content == "alpha\n" and not results[uses[0].id].is_error
    assert results[uses[1].id].is_error is True
    assert results[uses[2].id].content == "42"
    texts = [b.text for m in messages if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, TextBlock)]
    assert texts == ["Looking.", "The answer is 42."]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success" and not result.is_error
    assert result.result == "The answer is 42." and result.num_turns == 3
    assert (
        result.total_cost_usd is None and result.usage["output_tokens"] == 5 + 5 + 7
    )  # openai/fake has no price: unknown, not $0
    assert result.model_usage["openai/fake"]["outputTokens"] == 17
    assert result.stop_reason == "end_turn" and result.terminal_reason == "completed" and result.uuid


def test_can_use_tool_is_asked_and_its_denial_reaches_the_model(fakellm, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(calls=[Call("bash", {"command": "rm -rf build"})]),
            Turn(calls=[Call("bash", {"command": "echo fine"})]),
            Turn(text="ok"),
        ]
    )
    asked: list[tuple[str, dict]] = []

    async def can_use_tool(name: str, args: dict, context: Any) -> Any:
        asked.append((name, args))
        if "rm" in args["command"]:
            return PermissionResultDeny(message="never delete build, list it instead")
        return PermissionResultAllow(updated_input={"command": "echo changed"})

    async def prompts():
        yield {
            "type": "user",
            "message": {"role": "user", "content": "clean up"},
            "parent_tool_use_id": None,
            "session_id": "default",
        }

    opts = _options(flue_env, tmp_path, can_use_tool=can_use_tool)
    messages = _run(_collect(query(prompt=prompts(), options=opts)))
    assert asked == [("Bash", {"command": "rm -rf build"}), ("Bash", {"command": "echo fine"})]
    second = fakellm.requests[1]["messages"][-1]
    assert second["role"] == "tool" and "never delete build, list it instead" in second["content"]
    assert fakellm.requests[2]["messages"][-1]["content"] == "changed"  # the updated input ran
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "ok"
    assert [d["tool_input"] for d in result.permission_denials] == [{"command": "rm -rf build"}]


def test_client_interrupts_a_command_and_continues_the_session(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "sleep 300"})]), Turn(text="second answer")])

    async def scenario() -> tuple[list[Any], list[Any]]:
        async with ClaudeSDKClient(options=_options(flue_env, tmp_path, permission_mode="bypassPermissions")) as client:
            await client.query("run the long thing")
            first: list[Any] = []
            async for message in client.receive_response():
                first.append(message)
                if isinstance(message, AssistantMessage) and any(isinstance(b, ToolUseBlock) for b in message.content):
                    await client.interrupt()
            await client.query("and now?")
            second = [m async for m in client.receive_response()]
        return first, second

    first, second = _run(scenario())
    stopped = first[-1]
    assert isinstance(stopped, ResultMessage) and stopped.is_error and stopped.subtype == "error_during_execution"
    assert stopped.terminal_reason in ("aborted_tools", "aborted_streaming")
    done = second[-1]
    assert isinstance(done, ResultMessage) and done.result == "second answer"
    assert done.session_id == stopped.session_id
    # The second turn saw the first: same conversation, the interrupted command's result included.
    history = fakellm.requests[1]["messages"]
    assert [m["content"] for m in history if m["role"] == "user"] == ["run the long thing", "and now?"]


def test_client_switches_mode_and_model_and_refuses_unknown_requests(fakellm, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "x.txt", "content": "x"})], match=lambda b: b["model"] == "fake"),
            Turn(text="planned", match=lambda b: b["model"] == "fake"),
            Turn(text="from other", match=lambda b: b["model"] == "other"),
        ]
    )

    async def scenario() -> tuple[list[Any], list[Any], str]:
        async with ClaudeSDKClient(options=_options(flue_env, tmp_path, permission_mode="acceptEdits")) as client:
            await client.set_permission_mode("plan")
            await client.query("write x")
            first = [m async for m in client.receive_response()]
            await client.set_model("openai/other")
            await client.query("again")
            second = [m async for m in client.receive_response()]
            try:
                await client.get_mcp_status()
                refused = ""
            except Exception as exc:  # the SDK raises the CLI's error response
                refused = str(exc)
        return first, second, refused

    first, second, refused = _run(scenario())
    assert first[0].data["permissionMode"] == "plan" and not (tmp_path / "x.txt").exists()
    result = first[-1]
    assert [d["tool_name"] for d in result.permission_denials] == ["Write"]
    assert [d["tool_input"] for d in result.permission_denials] == [
        {"file_path": str(tmp_path / "x.txt"), "content": "x"}
    ]
    assert second[0].data["model"] == "openai/other" and second[-1].result == "from other"
    assert refused == "Unsupported control request subtype: mcp_status"


def test_raw_stdin_garbage_gets_one_line_and_the_session_goes_on(fakellm, flue_env, tmp_path):
    import json
    import subprocess

    fakellm.script([Turn(text="still here")])
    lines = [
        "not json at all",
        "[1, 2]",
        json.dumps({"type": "control_request", "request_id": "r1", "request": {"subtype": "teleport"}}),
        json.dumps({"type": "control_request", "request_id": "r2", "request": "nope"}),
        json.dumps({"type": "control_response", "response": {"request_id": "unknown", "subtype": "success"}}),
        json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "image"}]}}),
        json.dumps({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}),
    ]
    proc = subprocess.run(
        [FLUE, "--input-format", "stream-json", "--output-format", "stream-json", "--model", "openai/fake"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=flue_env,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    errors = {o["response"]["request_id"]: o["response"]["error"] for o in out if o["type"] == "control_response"}
    assert errors == {
        "r1": "Unsupported control request subtype: teleport",
        "r2": "control_request needs a request_id and a request object",
    }
    assert out[-1]["type"] == "result" and out[-1]["result"] == "still here"
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 3


def test_interrupt_while_the_sdk_is_deciding_cancels_the_question(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "touch ran.txt"})]), Turn(text="after")])

    async def scenario() -> tuple[list[Any], list[Any]]:
        asked = asyncio.Event()

        async def can_use_tool(name: str, args: dict, context: Any) -> Any:
            asked.set()
            await asyncio.sleep(3600)  # a person who never answers

        async with ClaudeSDKClient(options=_options(flue_env, tmp_path, can_use_tool=can_use_tool)) as client:
            await client.query("touch it")

            async def interrupt_when_asked() -> None:
                await asked.wait()
                await client.interrupt()

            waiter = asyncio.ensure_future(interrupt_when_asked())
            first = [m async for m in client.receive_response()]
            await waiter
            await client.query("and now?")
            second = [m async for m in client.receive_response()]
        return first, second

    first, second = _run(scenario())
    assert first[-1].is_error and first[-1].terminal_reason == "aborted_tools"
    assert not (tmp_path / "ran.txt").exists()
    assert second[-1].result == "after"


def test_print_mode_stream_json_parses_line_by_line(fakellm, run_flue):
    import json

    from claude_agent_sdk._internal.message_parser import parse_message

    fakellm.script([Turn(text="Looking", calls=[Call("bash", {"command": "echo hi"})]), Turn(text="bye")])
    out = run_flue(
        "-p",
        "go",
        "--model",
        "openai/fake",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
        "--permission-mode",
        "bypassPermissions",
        timeout=TIMEOUT,
    )
    assert out.code == 0 and out.stderr == "", out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert all(parse_message(line) is not None for line in lines)
    init = lines[0]
    assert set(init) >= {
        "cwd",
        "session_id",
        "tools",
        "mcp_servers",
        "model",
        "permissionMode",
        "slash_commands",
        "apiKeySource",
        "claude_code_version",
        "output_style",
        "agents",
        "skills",
        "plugins",
        "uuid",
    }
    assert init["permissionMode"] == "bypassPermissions"
    kinds = [line["type"] for line in lines]
    assert kinds[-1] == "result" and {"assistant", "user", "stream_event"} <= set(kinds)
    assert lines[-1]["result"] == "bye" and lines[-1]["session_id"] == init["session_id"]


def test_set_model_goes_through_the_handle_and_keeps_the_budget_enforceable(fakellm, flue_env, tmp_path):
    """stream-json input drives the SessionHandle: a switch to a model without a price under
    --max-budget-usd is refused (the budget could run out unseen), null returns to the run's model."""
    import json
    import subprocess
    import threading

    fakellm.script(
        [
            Turn(text="from mini", match=lambda b: b["model"] == "gpt-4o-mini"),
            Turn(text="from 4o", match=lambda b: b["model"] == "gpt-4o"),
            Turn(text="mini again", match=lambda b: b["model"] == "gpt-4o-mini"),
        ]
    )

    def user(text: str) -> str:
        return json.dumps({"type": "user", "message": {"role": "user", "content": text}})

    def set_model(rid: str, model: str | None) -> str:
        return json.dumps(
            {"type": "control_request", "request_id": rid, "request": {"subtype": "set_model", "model": model}}
        )

    # As the SDK does: the next request only once the turn before it has written its result.
    proc = subprocess.Popen(
        [FLUE, "--input-format", "stream-json", "--output-format", "stream-json", "--model", "openai/gpt-4o-mini"]
        + ["--max-budget-usd", "5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=flue_env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(TIMEOUT, proc.kill)  # a hung flue ends the read loop below, not the suite
    watchdog.start()
    out: list[dict[str, Any]] = []

    def turn(*lines: str) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            assert line, "flue ended before the turn's result"
            out.append(json.loads(line))
            if out[-1]["type"] == "result":
                return

    try:
        turn(set_model("r1", "openai/fake-without-a-price"), user("one"))
        turn(set_model("r2", "openai/gpt-4o"), user("two"))
        turn(set_model("r3", None), user("three"))
        _, stderr = proc.communicate(timeout=TIMEOUT)
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == 0, stderr
    answers = {o["response"]["request_id"]: o["response"] for o in out if o["type"] == "control_response"}
    assert answers["r1"]["subtype"] == "error"
    assert answers["r1"]["error"].startswith("--max-budget-usd needs a price for openai/fake-without-a-price")
    assert answers["r2"]["subtype"] == answers["r3"]["subtype"] == "success"
    assert [o["result"] for o in out if o["type"] == "result"] == ["from mini", "from 4o", "mini again"]
    inits = [o["model"] for o in out if o["type"] == "system" and o.get("subtype") == "init"]
    assert inits == ["openai/gpt-4o-mini", "openai/gpt-4o", "openai/gpt-4o-mini"]
    assert "Traceback" not in stderr
