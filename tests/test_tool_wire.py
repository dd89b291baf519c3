"""The tool array the model receives: Flue's order, byte-identical descriptions and schemas."""

from __future__ import annotations

import json

from tests.fakellm import Turn

EXPECTED = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file. Output is truncated to 2000 lines or 50KB \u2014 use offset/limit for large files.",
            "parameters": {
                "type": "object",
                "required": ["path"],
                "properties": {
                    "path": {"type": "string", "description": "Path to the file to read"},
                    "offset": {"type": "number", "description": "Line number to start from (1-indexed)"},
                    "limit": {"type": "number", "description": "Maximum number of lines to read"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write",
            "description": "Write content to a file. Creates the file and parent directories if they do not exist.",
            "parameters": {
                "type": "object",
                "required": ["path", "content"],
                "properties": {
                    "path": {"type": "string", "description": "Path to the file to write"},
                    "content": {"type": "string", "description": "Content to write to the file"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "edit",
            "description": "Edit a file using exact text replacement. The oldText must match a unique region of the "
            "file. Use replaceAll to replace all occurrences.",
            "parameters": {
                "type": "object",
                "required": ["path", "oldText", "newText"],
                "properties": {
                    "path": {"type": "string", "description": "Path to the file to edit"},
                    "oldText": {"type": "string", "description": "Exact text to find (must be unique)"},
                    "newText": {"type": "string", "description": "Replacement text"},
                    "replaceAll": {"type": "boolean", "description": "Replace all occurrences"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Execute a bash command. Returns stdout and stderr. Output is truncated to the last 2000 "
            "lines or 50KB.",
            "parameters": {
                "type": "object",
                "required": ["command"],
                "properties": {
                    "command": {"type": "string", "description": "Bash command to execute"},
                    "timeout": {"type": "number", "description": "Timeout in seconds"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "grep",
            "description": "Search file contents for a regex pattern. Returns matching lines with file paths and line "
            "numbers.",
            "parameters": {
                "type": "object",
                "required": ["pattern"],
                "properties": {
                    "pattern": {"type": "string", "description": "Search pattern (regex)"},
                    "path": {"type": "string", "description": "Directory or file to search (default: .)"},
                    "include": {"type": "string", "description": 'Glob filter, e.g. "*.ts"'},
                    "literal": {"type": "boolean", "description": "Match the pattern as literal text"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "glob",
            "description": "Find files by filename pattern using shell find -name semantics. Returns matching file paths.",
            "parameters": {
                "type": "object",
                "required": ["pattern"],
                "properties": {
                    "pattern": {"type": "string", "description": 'Filename pattern, e.g. "*.ts"'},
                    "path": {"type": "string", "description": "Directory to search in (default: .)"},
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "task",
            "description": "Delegate a focused task to a detached child agent with its own context. Use this for "
            "independent research, file exploration, or parallel work. Pass attachment IDs shown in the "
            "conversation to include those images. The task returns only its final answer to this "
            'conversation. Agents available for delegation are listed under "Available Agents" in '
            "the system prompt.",
            "parameters": {
                "type": "object",
                "required": ["prompt", "agent"],
                "properties": {
                    "description": {
                        "type": "string",
                        "description": "Short human-readable label for the delegated work",
                    },
                    "prompt": {"type": "string", "description": "Focused instructions for the child agent"},
                    "agent": {
                        "type": "string",
                        "minLength": 1,
                        "description": "Subagent to run the task with, from the list of currently available agents. "
                        "Agents that have been removed from the list are no longer usable (until "
                        "re-introduced, if ever).",
                    },
                    "cwd": {
                        "type": "string",
                        "description": "Working directory for the child agent. AGENTS.md and skills "
                        "are discovered from here.",
                    },
                    "attachments": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["id"],
                            "properties": {
                                "id": {
                                    "type": "string",
                                    "description": "Attachment ID shown in the current conversation",
                                }
                            },
                        },
                        "description": "Images from this conversation to include in the child agent prompt",
                    },
                },
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "activate_skill",
            "description": "Load the full instructions for one available skill before performing work that matches "
            "its description. Supporting resources remain lazy until explicitly read.",
            "parameters": {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string", "description": "Name of the skill to activate"}},
            },
        },
    },
]


ADDITIONS = ["todo_write", "bash_background", "bash_output", "bash_kill"]  # not Flue's: issue 26


def test_tool_array_on_the_wire_is_flues(fakellm, flue_main):
    fakellm.script([Turn(text="ok")])
    assert flue_main("-p", "hi", "--model", "openai/fake").code == 0
    sent = fakellm.requests[0]["tools"]
    # Byte-identical: same keys in the same order, same strings; flue's own additions follow.
    assert json.dumps(sent[: len(EXPECTED)], ensure_ascii=False) == json.dumps(EXPECTED, ensure_ascii=False)
    assert [t["function"]["name"] for t in sent[len(EXPECTED) :]] == ADDITIONS
