"""Model-facing definitions must serialise exactly as Flue's TypeBox schemas do."""

from __future__ import annotations

import json

from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from flue_tui.tools.base import tool_spec

EXPECTED = {
    "read": (
        "Read File",
        "read",
        "Read a file. Output is truncated to 2000 lines or 50KB \u2014 use offset/limit for large files.",
        '{"type": "object", "required": ["path"], "properties": {'
        '"path": {"type": "string", "description": "Path to the file to read"}, '
        '"offset": {"type": "number", "description": "Line number to start from (1-indexed)"}, '
        '"limit": {"type": "number", "description": "Maximum number of lines to read"}}}',
    ),
    "write": (
        "Write File",
        "edit",
        "Write content to a file. Creates the file and parent directories if they do not exist.",
        '{"type": "object", "required": ["path", "content"], "properties": {'
        '"path": {"type": "string", "description": "Path to the file to write"}, '
        '"content": {"type": "string", "description": "Content to write to the file"}}}',
    ),
    "edit": (
        "Edit File",
        "edit",
        "Edit a file using exact text replacement. The oldText must match a unique region of the file. "
        "Use replaceAll to replace all occurrences.",
        '{"type": "object", "required": ["path", "oldText", "newText"], "properties": {'
        '"path": {"type": "string", "description": "Path to the file to edit"}, '
        '"oldText": {"type": "string", "description": "Exact text to find (must be unique)"}, '
        '"newText": {"type": "string", "description": "Replacement text"}, '
        '"replaceAll": {"type": "boolean", "description": "Replace all occurrences"}}}',
    ),
    "bash": (
        "Run Command",
        "execute",
        "Execute a bash command. Returns stdout and stderr. Output is truncated to the last 2000 lines or 50KB.",
        '{"type": "object", "required": ["command"], "properties": {'
        '"command": {"type": "string", "description": "Bash command to execute"}, '
        '"timeout": {"type": "number", "description": "Timeout in seconds"}}}',
    ),
    "grep": (
        "Search Files",
        "search",
        "Search file contents for a regex pattern. Returns matching lines with file paths and line numbers.",
        '{"type": "object", "required": ["pattern"], "properties": {'
        '"pattern": {"type": "string", "description": "Search pattern (regex)"}, '
        '"path": {"type": "string", "description": "Directory or file to search (default: .)"}, '
        '"include": {"type": "string", "description": "Glob filter, e.g. \\"*.ts\\""}, '
        '"literal": {"type": "boolean", "description": "Match the pattern as literal text"}}}',
    ),
    "glob": (
        "Find Files",
        "search",
        "Find files by filename pattern using shell find -name semantics. Returns matching file paths.",
        '{"type": "object", "required": ["pattern"], "properties": {'
        '"pattern": {"type": "string", "description": "Filename pattern, e.g. \\"*.ts\\""}, '
        '"path": {"type": "string", "description": "Directory to search in (default: .)"}}}',
    ),
}


def test_builtin_tools_order_and_definitions(tmp_path):
    tools = builtin_tools(LocalSandbox(str(tmp_path)))
    assert [t.name for t in tools] == ["read", "write", "edit", "bash", "grep", "glob"]
    for tool in tools:
        label, kind, description, params = EXPECTED[tool.name]
        assert tool.label == label
        assert tool.traits.kind == kind
        assert tool.description == description
        assert json.dumps(tool.parameters) == params


def test_compact_json_matches_flue_bytes(tmp_path):
    read = builtin_tools(LocalSandbox(str(tmp_path)))[0]
    assert json.dumps(tool_spec(read)["function"], separators=(",", ":"), ensure_ascii=False) == (
        '{"name":"read","description":"Read a file. Output is truncated to 2000 lines or 50KB — use '
        'offset/limit for large files.","parameters":{"type":"object","required":["path"],"properties":'
        '{"path":{"type":"string","description":"Path to the file to read"},"offset":{"type":"number",'
        '"description":"Line number to start from (1-indexed)"},"limit":{"type":"number",'
        '"description":"Maximum number of lines to read"}}}}'
    )
    assert len(read.description) == 90
