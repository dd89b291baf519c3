"""The tools the model calls; model-visible strings are Flue's, byte for byte.

base.py        the Tool protocol, ToolResult, ToolContext, schema helpers
read.py, write.py, edit.py, bash.py, grep.py, glob.py   Flue's six tools (builtin_tools below)
task.py        delegation to a child session; skill.py activate_skill/read_skill_resource
result.py      finish/give_up; truncate.py Flue's limits; locks.py per-file locks; diff.py UI diffs
todo.py        `todo_write`: the model's live plan
background.py  `bash_background`, `bash_output`, `bash_kill`: commands that keep running
"""

from __future__ import annotations

from flue_tui.sandbox.base import Sandbox
from flue_tui.tools.base import Tool


def builtin_tools(sandbox: Sandbox) -> list[Tool]:
    """read, write, edit, bash, grep, glob over `sandbox`, in the order Flue hands them to the model."""
    from flue_tui.tools.bash import BashTool
    from flue_tui.tools.edit import EditTool
    from flue_tui.tools.glob import GlobTool
    from flue_tui.tools.grep import GrepTool
    from flue_tui.tools.read import ReadTool
    from flue_tui.tools.write import WriteTool

    return [
        ReadTool(sandbox),
        WriteTool(sandbox),
        EditTool(sandbox),
        BashTool(sandbox),
        GrepTool(sandbox),
        GlobTool(sandbox),
    ]
