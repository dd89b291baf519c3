"""Typed tool details (core/details.py): the tools build them, the wire and the store keep the
dicts they always had (keys and order), and front ends read them typed, even from a bad dict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flue_tui.core.abort import AbortSignal
from flue_tui.core.details import (
    BashDetails,
    EditDetails,
    MatchDetails,
    ReadDetails,
    TaskDetails,
    WriteDetails,
    wire,
)
from flue_tui.tools.base import ToolContext
from flue_tui.tools.bash import BashTool
from flue_tui.tools.edit import EditTool
from flue_tui.tools.glob import GlobTool
from flue_tui.tools.grep import GrepTool
from flue_tui.tools.read import ReadTool
from flue_tui.tools.task import TaskTool
from flue_tui.tools.write import WriteTool
from flue_tui.ui.toolfmt import summary
from flue_tui.ui.transcript import ToolEntry

# The dicts as the tools wrote them before details were typed: the store and stream-json hold these.
WIRE = [
    ("bash", BashDetails("ls", 0, 12), '{"command": "ls", "exitCode": 0, "durationMs": 12}'),
    ("bash", BashDetails("x", None, 3), '{"command": "x", "exitCode": null, "durationMs": 3}'),
    ("read", ReadDetails("f.txt", lines=3), '{"path": "f.txt", "lines": 3}'),
    ("read", ReadDetails("b", size=7, binary=True), '{"path": "b", "size": 7, "binary": true}'),
    ("read", ReadDetails("f.txt", lines=229, shown=160), '{"path": "f.txt", "lines": 229, "shown": 160}'),
    ("write", WriteDetails("w", 2, "d"), '{"path": "w", "size": 2, "diff": "d"}'),
    ("edit", EditDetails("e", "d"), '{"path": "e", "diff": "d"}'),
    ("edit", EditDetails("e", "d", 5), '{"path": "e", "replacements": 5, "diff": "d"}'),
    ("grep", MatchDetails(2), '{"matchCount": 2}'),
    ("task", TaskDetails("a", "t1", "s1", "/w"), '{"taskId": "t1", "session": "s1", "agent": "a", "cwd": "/w"}'),
    ("task", TaskDetails("zz", available=("a", "b")), '{"agent": "zz", "available": ["a", "b"]}'),
]


# Each tool names its details class in its traits; nothing else maps names to details.
TRAITS = {t.name: t.traits for t in (ReadTool, WriteTool, EditTool, BashTool, GrepTool, GlobTool, TaskTool)}


@pytest.mark.parametrize(("tool", "value", "stored"), WIRE)
def test_the_wire_form_is_the_dict_it_always_was_and_reads_back(tool, value, stored):
    assert json.dumps(wire(value)) == stored
    assert TRAITS[tool].read_details(json.loads(stored)) == value


async def test_tools_build_typed_details_whose_wire_keeps_the_old_keys(tmp_path: Path, sandbox):
    (tmp_path / "f.txt").write_text("alpha\nbeta\n")
    ctx = ToolContext(call_id="c", signal=AbortSignal())
    edit = await EditTool(sandbox).execute({"path": "f.txt", "oldText": "beta", "newText": "BETA"}, ctx)
    bash = await BashTool(sandbox).execute({"command": "exit 3"}, ctx)
    assert isinstance(edit.details, EditDetails) and list(wire(edit.details)) == ["path", "diff"]
    assert isinstance(bash.details, BashDetails) and bash.details.exit_code == 3
    assert list(wire(bash.details)) == ["command", "exitCode", "durationMs"]


@pytest.mark.parametrize(
    ("tool", "details", "words"),
    [
        ("read", {"lines": True}, ""),  # a bool is not a line count
        ("bash", {"exitCode": "\x1b[2J; rm -rf"}, ""),  # text where a number belongs
        ("grep", {"matchCount": "many"}, ""),
        ("edit", {"diff": ["+x"]}, "Successfully edited f"),
        ("bash", {"interrupted": True}, ""),
        ("bash", {"command": "ls", "exitCode": 2, "durationMs": 1}, "exit 2"),
    ],
)
def test_a_stored_dict_of_the_wrong_shape_reads_as_nothing_never_a_crash(tool, details, words):
    """Imported sessions are untrusted: a field of the wrong type is dropped, not shown or raised on."""
    traits = TRAITS[tool]
    entry = ToolEntry(
        name=tool, kind=traits.kind, traits=traits, status="ok", result_text="Successfully edited f", details=details
    )
    assert summary(entry) == words
    assert entry.diff == ""
