"""`activate_skill` and `read_skill_resource` (flue-behaviour.md §2.7, §6.4)."""

from __future__ import annotations

import base64
import textwrap
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from flue_tui.context.frontmatter import SkillFormatError
from flue_tui.context.skills import PACKAGED_ROOT, SkillSet, activation_text
from flue_tui.core.abort import ToolError
from flue_tui.core.traits import ToolTraits
from flue_tui.tools.base import MAX_READ_BYTES, MAX_READ_LINES, ToolContext, ToolResult, prop, schema
from flue_tui.tools.truncate import js_number, truncate_head


class ActivateSkillTool:
    name = "activate_skill"
    label = "Activate Skill"
    traits = ToolTraits(kind="read", subject="name", read_only=True)
    description = (
        "Load the full instructions for one available skill before performing work that matches its "
        "description. Supporting resources remain lazy until explicitly read."
    )
    parameters = schema({"name": prop("string", "Name of the skill to activate")}, ["name"])

    def __init__(self, skills: SkillSet) -> None:
        self.skills = skills

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.signal.throw_if_aborted()
        name = args["name"]
        skill = self.skills.get(name)
        if skill is None:
            available = ", ".join(s.name for s in self.skills.skills)
            return ToolResult(
                text=f'Skill "{name}" is not available. Available skills: {available}.', details={"skill": name}
            )
        try:
            text = activation_text(skill)
        except (SkillFormatError, OSError) as exc:
            raise ToolError(str(exc)) from None
        return ToolResult(text=text, details={"skill": name, "source": skill.source})


def format_read_text(content: str, offset: Any, limit: Any) -> str:
    """Flue's formatReadContent over an in-memory text (skill resources are small files)."""
    lines = content.split("\n")
    start = max(0, int(offset) - 1) if offset else 0
    if start >= len(lines):
        raise ToolError(f"Offset {js_number(offset)} is beyond end of file ({len(lines)} lines total)")
    end = start + int(limit) if limit else len(lines)
    window = lines[start:end]
    text, truncated, emitted = truncate_head(window, len(window), MAX_READ_LINES, MAX_READ_BYTES)
    if not truncated:
        return text
    if emitted == 0:
        return (
            f"{text}\n\n[Line {start + 1} exceeds the {MAX_READ_BYTES}-byte read limit; showing the first "
            f"{MAX_READ_BYTES} bytes of it. The remainder of this line is not accessible via offset/limit.]"
        )
    return (
        f"{text}\n\n[Showing lines {start + 1}-{start + emitted} of {len(lines)}. "
        f"Use offset={start + emitted + 1} to continue.]"
    )


class ReadSkillResourceTool:
    name = "read_skill_resource"
    label = "Read Skill Resource"
    traits = ToolTraits(kind="read", read_only=True)  # its path is inside a skill, not the workspace
    description = "Read a packaged skill supporting file by its advertised path."
    parameters = schema(
        {
            "path": prop("string", "Path to the file to read"),
            "offset": prop("number", "Line number to start from (1-indexed)"),
            "limit": prop("number", "Maximum number of lines to read"),
        },
        ["path"],
    )

    def __init__(self, skills: SkillSet) -> None:
        self.skills = skills

    def _locate(self, path: str) -> Path | None:
        prefix = PACKAGED_ROOT + "/"
        if not path.startswith(prefix):
            return None
        # The id has no "/", so this accepts the advertised (percent-encoded) and the plain form.
        head, _, rel = path[len(prefix) :].partition("/")
        skill_id = unquote(head)
        for skill in self.skills.skills:
            if skill.skill_id and skill.skill_id == skill_id and rel in skill.resources:
                return Path(skill.directory) / rel
        return None

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        ctx.signal.throw_if_aborted()
        path = args["path"]
        file = self._locate(path)
        if file is None:
            raise ToolError(f"[flue] Packaged skill file not found: {path}")
        data = file.read_bytes()
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError:
            content = "\n".join(textwrap.wrap(base64.b64encode(data).decode("ascii"), 76))
        text = format_read_text(content, args.get("offset"), args.get("limit"))
        return ToolResult(text=text, details={"path": path, "lines": len(content.split("\n"))})
