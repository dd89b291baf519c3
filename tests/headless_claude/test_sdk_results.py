"""Results as Claude Code writes them, read through the real Agent SDK against the strict Anthropic
stand-in: the json-schema answer as `result` text, an API error's shape, num_turns as Claude Code
counts, `usage.service_tier`, `tool_use_result` on tool-result lines, and Anthropic model ids
without flue's provider prefix (the shapes are those Claude Code 2.1.332 wrote side by side)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakellm import Call, Turn

pytest.importorskip("claude_agent_sdk")
from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, UserMessage, query

from tests.headless_claude.sdkrun import collect, needs_flue, options, run

pytestmark = needs_flue


def _anthropic(flue_env: dict[str, str], fakeanthropic: Any, cwd: Path, **kw: Any) -> Any:
    env = {**flue_env, "ANTHROPIC_API_BASE": fakeanthropic.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
    return options(env, cwd, model="anthropic/claude-sonnet-4-5", permission_mode="bypassPermissions", **kw)


def test_json_schema_answer_is_the_result_text_and_num_turns_counts_the_last_round(fakeanthropic, flue_env, tmp_path):
    fakeanthropic.script([Turn(calls=[Call("finish", {"answer": 42})])])
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]}
    opts = _anthropic(flue_env, fakeanthropic, tmp_path, output_format={"type": "json_schema", "schema": schema})
    messages = run(collect(query(prompt="the answer?", options=opts)))
    result = messages[-1]
    assert isinstance(result, ResultMessage) and not result.is_error
    assert result.result == '{"answer":42}' and result.structured_output == {"answer": 42}
    assert result.num_turns == 2  # one request, then the round that read the answer: Claude Code says 2
    assert result.usage is not None and result.usage["service_tier"] == "standard"


def test_an_api_error_is_a_success_with_is_error_and_its_status(fakeanthropic, flue_env, tmp_path):
    fakeanthropic.script([Turn(status=400, error_message="max_tokens: 99999999 > 64000, which is the maximum allowed")])
    messages = run(collect(query(prompt="hi", options=_anthropic(flue_env, fakeanthropic, tmp_path))))
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", True, 1)
    assert "max_tokens: 99999999 > 64000" in (result.result or "")
    assert result.api_error_status == 400 and result.terminal_reason == "api_error"


def test_tool_result_lines_carry_tool_use_result_and_the_model_has_no_prefix(fakeanthropic, flue_env, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\n")
    fakeanthropic.script(
        [
            Turn(calls=[Call("read", {"path": "notes.txt"}), Call("read", {"path": "missing.txt"})]),
            Turn(calls=[Call("bash", {"command": "echo 42"}), Call("write", {"path": "new.txt", "content": "x"})]),
            Turn(text="done"),
        ]
    )
    messages = run(collect(query(prompt="go", options=_anthropic(flue_env, fakeanthropic, tmp_path))))
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.data["model"] == "claude-sonnet-4-5"
    models = {m.model for m in messages if isinstance(m, AssistantMessage)}
    assert models == {"claude-sonnet-4-5"}
    results = [m.tool_use_result for m in messages if isinstance(m, UserMessage)]
    assert results[0] == {
        "type": "text",
        "file": {"filePath": "notes.txt", "content": "alpha\n", "numLines": 2, "startLine": 1, "totalLines": 2},
    }
    assert isinstance(results[1], str) and results[1].startswith("Error: ")
    assert results[2] == {
        "stdout": "42",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    written = results[3] or {}
    assert written["type"] == "create" and written["filePath"] == "new.txt" and written["content"] == "x"
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.num_turns == 3
    assert list(result.model_usage or {}) == ["claude-sonnet-4-5"]
