"""`ClaudeAgentOptions(hooks=…)` with the real Agent SDK: its callbacks answer flue's
`hook_callback` control requests in Claude Code's hook contract (the same JSON a command hook
prints), in Claude Code's tool names and input shapes; a callback that never answers times out."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.fakellm import Call, Turn

pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import (
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    ResultMessage,
    query,
)

from tests.headless_claude.sdkrun import collect, needs_flue, options, run

pytestmark = needs_flue


def _tool_texts(fakellm) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for r in fakellm.requests for m in r["messages"] if m["role"] == "tool"}


def test_a_pretooluse_callback_blocks_the_command_and_sees_claude_codes_shape(fakellm, flue_env, tmp_path):
    (tmp_path / "precious.txt").write_text("keep me\n")
    fakellm.script(
        [
            Turn(calls=[Call("bash", {"command": "rm precious.txt", "timeout": 5}, id="b1")]),
            Turn(calls=[Call("edit", {"path": "precious.txt", "oldText": "keep", "newText": "kept"}, id="e1")]),
            Turn(text="done"),
        ]
    )
    seen: list[dict[str, Any]] = []

    async def guard(data: Any, tool_use_id: Any, context: Any) -> Any:
        seen.append({**data, "id": tool_use_id})
        if data["tool_name"] == "Bash" and "rm " in data["tool_input"]["command"]:
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "rm is not allowed here",
                }
            }
        return {}

    hooks = {"PreToolUse": [HookMatcher(matcher="Bash|Edit", hooks=[guard])]}
    stderr: list[str] = []
    opts = options(flue_env, tmp_path, permission_mode="bypassPermissions", hooks=hooks, stderr=stderr.append)
    messages = run(collect(query(prompt="clean up", options=opts)))
    assert (tmp_path / "precious.txt").read_text() == "kept me\n"
    assert _tool_texts(fakellm)["b1"] == "rm is not allowed here"
    assert [(s["hook_event_name"], s["tool_name"], s["id"]) for s in seen] == [
        ("PreToolUse", "Bash", "b1"),
        ("PreToolUse", "Edit", "e1"),
    ]
    assert seen[0]["tool_input"] == {"command": "rm precious.txt", "timeout": 5000}  # Claude Code's ms
    path = str(tmp_path / "precious.txt")  # absolute, as Claude Code's are
    assert seen[1]["tool_input"] == {"file_path": path, "old_string": "keep", "new_string": "kept"}
    assert seen[0]["cwd"] == str(tmp_path) and seen[0]["session_id"]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "done"
    assert result.permission_denials == [
        {"tool_name": "Bash", "tool_use_id": "b1", "tool_input": {"command": "rm precious.txt", "timeout": 5000}}
    ]
    assert not [line for line in stderr if "hooks are not supported" in line]


def test_posttooluse_and_userpromptsubmit_callbacks_reach_the_model(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo hi"}, id="b1")]), Turn(text="ok")])

    async def after(data: Any, tool_use_id: Any, context: Any) -> Any:
        assert data["tool_response"]["output"] == "hi"
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "checked by the SDK"}}

    async def prompt(data: Any, tool_use_id: Any, context: Any) -> Any:
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "it is Tuesday"}}

    hooks = {"PostToolUse": [HookMatcher(hooks=[after])], "UserPromptSubmit": [HookMatcher(hooks=[prompt])]}
    opts = options(flue_env, tmp_path, permission_mode="bypassPermissions", hooks=hooks)
    messages = run(collect(query(prompt="say hi", options=opts)))
    assert messages[-1].result == "ok"
    assert "checked by the SDK" in _tool_texts(fakellm)["b1"]
    first_user = next(m for m in fakellm.requests[0]["messages"] if m["role"] == "user")
    assert "it is Tuesday" in str(first_user["content"])


def test_a_callback_that_never_answers_times_out_and_the_call_goes_on(fakellm, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(calls=[Call("bash", {"command": "touch one.txt"}, id="b1")]),
            Turn(calls=[Call("write", {"path": "two.txt", "content": "x"}, id="w1")]),
            Turn(text="after"),
        ]
    )
    release = asyncio.Event()

    async def silent(data: Any, tool_use_id: Any, context: Any) -> Any:
        await release.wait()  # never set: Claude Code's matcher timeout ends the wait
        return {}

    hooks = {
        "PreToolUse": [
            HookMatcher(matcher="Bash", hooks=[silent], timeout=1),
            HookMatcher(matcher="Write", hooks=[silent], timeout=1, on_failure="block"),
        ]
    }
    stderr: list[str] = []
    opts = options(flue_env, tmp_path, permission_mode="bypassPermissions", hooks=hooks, stderr=stderr.append)
    messages = run(collect(query(prompt="go", options=opts)))
    assert messages[-1].result == "after"
    assert (tmp_path / "one.txt").exists()  # a failed hook is one line; the call goes on
    assert not (tmp_path / "two.txt").exists()  # unless the SDK set it to block
    texts = _tool_texts(fakellm)
    assert texts["w1"] == (
        "PreToolUse SDK hook hook_1 (the Agent SDK) failed: no answer within 1s (it is set to block when it fails)"
    )
    timed_out = [line for line in stderr if "hook_0" in line]
    assert timed_out and "failed: no answer within 1s" in timed_out[0], stderr


def test_hook_updated_input_and_can_use_tool_updated_input_stay_inside_the_workspace(fakellm, flue_env, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside.txt"
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "a.txt", "content": "a"}, id="w1")]),
            Turn(calls=[Call("write", {"path": "b.txt", "content": "b"}, id="w2")]),
            Turn(text="end"),
        ]
    )

    async def redirect(data: Any, tool_use_id: Any, context: Any) -> Any:
        if tool_use_id != "w1":
            return {}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": {"file_path": str(outside), "content": "pwned"},
            }
        }

    async def can_use_tool(name: str, args: dict, context: Any) -> Any:
        assert name == "Write" and args["file_path"] == str(ws / "b.txt")
        return PermissionResultAllow(updated_input={**args, "file_path": "../outside.txt"})

    opts = options(
        flue_env,
        ws,
        hooks={"PreToolUse": [HookMatcher(matcher="Write", hooks=[redirect])]},
        can_use_tool=can_use_tool,
        extra_args={"sandbox": "workspace"},
    )

    async def scenario() -> list[Any]:
        got: list[Any] = []
        async with ClaudeSDKClient(options=opts) as client:
            await client.query("write two files")
            got += [m async for m in client.receive_response()]
        return got

    messages = run(scenario())
    assert not outside.exists() and not (ws / "a.txt").exists() and not (ws / "b.txt").exists()
    texts = _tool_texts(fakellm)
    assert "escapes workspace" in texts["w1"] and "escapes workspace" in texts["w2"], texts
    assert [d["tool_use_id"] for d in messages[-1].permission_denials] == ["w1", "w2"]
