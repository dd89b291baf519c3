"""One tool call, one description: every surface names a call with core/toolcall.call_summary.

The app and inline mode (toolfmt.header), `-p --verbose`, `--plain`, `flue sessions show`, the
app's `/export` and `flue sessions export` used to describe the same call three ways (`· grep .`
lost the pattern). Each surface is driven here with the same stored call.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from flue_tui.core.events import ToolStart
from flue_tui.core.toolcall import call_summary
from flue_tui.headless import plain, printmode
from flue_tui.store import export as store_export
from flue_tui.store.sessions import SessionStore
from flue_tui.ui import sessions_show, toolfmt
from flue_tui.ui.transcript import ToolEntry

CALLS = [
    ("grep", {"pattern": "def main\\(", "path": "src", "include": "*.py"}, "def main\\(  in src  (*.py)"),
    ("bash", {"command": "echo one\necho two"}, "echo one …"),
    ("read", {"path": "notes.txt", "offset": 3, "limit": 4}, "notes.txt:3+4"),
    ("task", {"agent": "flue-general", "description": "look around", "prompt": "p"}, "flue-general · look around"),
    # Model-made arguments of the wrong type are skipped, never printed raw.
    ("read", {"path": ["x"], "offset": "3"}, ""),
]


def surfaces(name: str, args: dict, tmp_path, capsys) -> dict[str, str]:
    """The line each surface prints for one call."""
    out: dict[str, str] = {}
    entry = ToolEntry(name=name, args=args, status="ok")
    out["app+inline"] = toolfmt.header(entry, 0, 0.0).plain
    event = ToolStart(session="ses_x", tool_name=name, tool_call_id="c1", args=args)
    printmode._Renderer("text", verbose=True, partial=False)(event)
    out["-p --verbose"] = capsys.readouterr().err
    plain._render(event)
    out["--plain"] = capsys.readouterr().err
    stored = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "text": "",
            "thinking": "",
            "stop_reason": "tool_calls",
            "error": None,
            "model": "openai/fake",
            "usage": None,
            "tool_calls": [{"id": "c1", "name": name, "arguments": args, "raw_arguments": ""}],
        },
    ]
    with SessionStore.open(tmp_path / f"{name}.db") as store:
        store.create("ses_a", cwd=str(tmp_path), model="openai/fake")
        for m in stored:
            store.append("ses_a", m)
        info = store.get("ses_a")
        buf = io.StringIO()
        sessions_show.show(store, info, console=Console(file=buf, width=200, color_system=None))
        out["sessions show"] = buf.getvalue()
        out["sessions export"] = store_export.to_markdown(store, info)
    # The app's /export of a session not saved yet (a saved one is `sessions export`'s Markdown).
    out["/export"] = store_export.unsaved_markdown(
        "ses_b", str(tmp_path), "openai/fake", "t", stored, (0, 0, 0, 0, 0.0)
    )
    return out


@pytest.mark.parametrize(("name", "args", "expected"), CALLS, ids=[c[0] + str(i) for i, c in enumerate(CALLS)])
def test_every_surface_names_a_call_the_same_way(name, args, expected, tmp_path, capsys):
    assert call_summary(name, args) == expected
    for surface, text in surfaces(name, args, tmp_path, capsys).items():
        line = next((ln for ln in text.splitlines() if name in ln and "ses_" not in ln), "")
        if expected:
            assert line.rstrip().endswith(expected) or f"{name}  {expected}" in line, (surface, text)
        else:  # nothing to say: the bare name, no raw list or JSON on the line
            assert "[" not in line and "{" not in line, (surface, text)
