"""The `write` tool: whole-file write under the per-file mutation lock."""

from __future__ import annotations

import asyncio
from typing import Any

from flue_tui.core.details import WriteDetails
from flue_tui.core.jsstr import len16
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import Sandbox
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema
from flue_tui.tools.diff import read_before, unified_diff
from flue_tui.tools.locks import check_abort, uncancellable, with_file_lock


class WriteTool:
    name = "write"
    label = "Write File"
    traits = ToolTraits(kind="edit", paths=("path",), details=WriteDetails)
    description = "Write content to a file. Creates the file and parent directories if they do not exist."
    parameters = schema(
        {
            "path": prop("string", "Path to the file to write"),
            "content": prop("string", "Content to write to the file"),
        },
        ["path", "content"],
    )

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_abort(ctx.signal)
        path: str = args["path"]
        content: str = args["content"]

        async def locked() -> str:
            check_abort(ctx.signal)
            # Flue checks abort only before the write; the UI-only pre-read adds no check.
            before = await asyncio.to_thread(read_before, self.sandbox, path)
            await uncancellable(self.sandbox.write_text(path, content))
            return before

        before = await with_file_lock(self.sandbox, path, locked)
        size = len16(content)  # JS string length, which Flue calls "bytes"
        diff = await asyncio.to_thread(unified_diff, path, before, content)
        return ToolResult(f"Successfully wrote {size} bytes to {path}", WriteDetails(path, size, diff))
