"""Matchers as Claude Code reads them, over Claude Code's tool names and flue's, and over the other
events' one value (SessionStart's source, SubagentStop's agent type, ...)."""

from __future__ import annotations

import pytest

from flue_tui.hooks import names
from flue_tui.hooks.config import Hook


def _hook(matcher: str, event: str = "PreToolUse") -> Hook:
    return Hook(event, matcher, "true", 60.0, "--settings")


@pytest.mark.parametrize(
    ("matcher", "tool", "hit"),
    [
        ("Bash", "bash", True),
        ("bash", "bash", True),
        ("Bash", "bash_background", True),  # a background command is Claude Code's Bash too
        ("Write|Edit", "edit", True),
        ("Write|Edit", "read", False),
        ("Task", "task", True),
        ("Agent", "task", True),
        ("TodoWrite", "todo_write", True),
        ("mcp__srv__echo", "mcp__srv__echo", True),
        ("mcp__srv__.*", "mcp__srv__echo", True),
        ("mcp__srv__.*", "mcp__other__echo", False),
        ("mcp__.*__echo", "mcp__srv__echo", True),
        ("Bas", "bash", False),  # a plain name is exact, not a prefix
        ("", "grep", True),
        ("*", "glob", True),
    ],
)
def test_tool_matchers(matcher: str, tool: str, hit: bool):
    assert _hook(matcher).matches(names.names(tool)) is hit


@pytest.mark.parametrize(
    ("event", "matcher", "value", "hit"),
    [
        ("SessionStart", "startup|resume", "resume", True),
        ("SessionStart", "startup", "compact", False),
        ("SessionEnd", "clear", "prompt_input_exit", False),
        ("PreCompact", "auto", "auto", True),
        ("Notification", "permission_prompt", "idle_prompt", False),
        ("UserPromptSubmit", "never-a-match", "anything", True),  # its matcher is ignored, as Claude Code does
        ("Stop", "never-a-match", "anything", True),
    ],
)
def test_event_value_matchers(event: str, matcher: str, value: str, hit: bool):
    assert _hook(matcher, event).matches((value,)) is hit


def test_subagent_stop_matches_claude_codes_agent_name_and_flues():
    kinds = names.agent_names("flue-general")
    assert kinds == ("general-purpose", "flue-general")
    assert _hook("general-purpose", "SubagentStop").matches(kinds)
    assert _hook("flue-general", "SubagentStop").matches(kinds)
    assert not _hook("code-reviewer", "SubagentStop").matches(kinds)


def test_updated_input_comes_back_in_flues_names():
    assert names.from_claude("edit", {"file_path": "a", "old_string": "x", "new_string": "y"}) == {
        "path": "a",
        "oldText": "x",
        "newText": "y",
    }
    assert names.from_claude("bash", {"command": "ls", "timeout": 5000}) == {"command": "ls", "timeout": 5.0}
    assert names.from_claude("bash_background", {"command": "ls", "run_in_background": True}) == {"command": "ls"}
