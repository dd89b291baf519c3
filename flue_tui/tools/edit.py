"""The `edit` tool: exact, literal, unique (or replaceAll) text replacement under the file lock."""

from __future__ import annotations

import asyncio
from typing import Any

from flue_tui.core.abort import ToolError
from flue_tui.core.details import EditDetails
from flue_tui.core.traits import ToolTraits
from flue_tui.sandbox.base import Sandbox
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema
from flue_tui.tools.diff import unified_diff
from flue_tui.tools.locks import check_abort, uncancellable, with_file_lock


class EditTool:
    name = "edit"
    label = "Edit File"
    traits = ToolTraits(kind="edit", paths=("path",), details=EditDetails)
    description = (
        "Edit a file using exact text replacement. The oldText must match a unique region of the "
        "file. Use replaceAll to replace all occurrences."
    )
    parameters = schema(
        {
            "path": prop("string", "Path to the file to edit"),
            "oldText": prop("string", "Exact text to find (must be unique)"),
            "newText": prop("string", "Replacement text"),
            "replaceAll": prop("boolean", "Replace all occurrences"),
        },
        ["path", "oldText", "newText"],
    )

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        check_abort(ctx.signal)
        path: str = args["path"]
        old: str = args["oldText"]
        new: str = args["newText"]
        if old == "":
            raise ToolError("oldText must be a non-empty string.")

        async def locked() -> tuple[str, int | None, str, str]:
            check_abort(ctx.signal)
            content: str = await self.sandbox.read_text(path)
            check_abort(ctx.signal)
            # str.replace is literal, so `$&` / `$$` in newText stay as typed (Flue uses a
            # function replacer for the same effect).
            if args.get("replaceAll"):
                updated = content.replace(old, new)
                if updated == content:
                    raise ToolError(f"Could not find the text in {path}. No changes made.")
                await uncancellable(self.sandbox.write_text(path, updated))
                count = content.count(old)  # == JS content.split(old).length - 1
                return f"Replaced {count} occurrences in {path}", count, content, updated
            occurrences = content.count(old)  # non-overlapping, like Flue's countOccurrences
            if occurrences == 0:
                raise ToolError(
                    f"Could not find the exact text in {path}. Make sure your oldText matches "
                    "exactly, including whitespace and indentation."
                )
            if occurrences > 1:
                raise ToolError(
                    f"Found {occurrences} occurrences of the text in {path}. Provide more "
                    "surrounding context to make the match unique, or use replaceAll."
                )
            updated = content.replace(old, new, 1)
            await uncancellable(self.sandbox.write_text(path, updated))
            return f"Successfully edited {path}", None, content, updated

        text, replacements, before, after = await with_file_lock(self.sandbox, path, locked)
        # The diff is UI-only; computing it after releasing the lock keeps the queue moving.
        diff = await asyncio.to_thread(unified_diff, path, before, after)
        return ToolResult(text, EditDetails(path, diff, replacements))
