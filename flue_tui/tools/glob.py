"""The `glob` tool: `find -name` through the sandbox, first 1000 paths in find's order."""

from __future__ import annotations

from typing import Any

from flue_tui.core.details import FileMatchDetails
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import Sandbox
from flue_tui.tools.base import MAX_GLOB_RESULTS, ToolContext, ToolResult, prop, schema
from flue_tui.tools.locks import check_abort
from flue_tui.tools.truncate import HeadLines, path_operand, shell_quote

NO_FILES = "No files found matching pattern."


class GlobTool:
    name = "glob"
    label = "Find Files"
    traits = ToolTraits(kind="search", paths=("path",), read_only=True, details=FileMatchDetails)
    description = "Find files by filename pattern using shell find -name semantics. Returns matching file paths."
    parameters = schema(
        {
            "pattern": prop("string", 'Filename pattern, e.g. "*.ts"'),
            "path": prop("string", "Directory to search in (default: .)"),
        },
        ["pattern"],
    )

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_abort(ctx.signal)
        # path_operand: a path such as "-delete" must stay a starting point, never an action.
        search_path = path_operand(args.get("path") or ".")
        cmd = (
            f"find {shell_quote(search_path)} -type f -name {shell_quote(args['pattern'])}"
            f" 2>/dev/null | head -{MAX_GLOB_RESULTS}"
        )
        # `head` bounds the line count; collecting from the stream (not the sandbox's bounded
        # tail) keeps the first paths even when they are long.
        out = HeadLines(MAX_GLOB_RESULTS + 1)
        result = await self.sandbox.exec(
            cmd, signal=ctx.signal, on_output=lambda s, c: out.feed(c) if s == "stdout" else None
        )
        if result.exit_code != 0 and out.empty:
            return ToolResult(NO_FILES, FileMatchDetails(0))
        paths = [p for p in out.head() if p]
        if not paths:
            return ToolResult(NO_FILES, FileMatchDetails(0))
        return ToolResult("\n".join(paths), FileMatchDetails(len(paths)))
