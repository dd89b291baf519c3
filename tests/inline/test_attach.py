"""`@path` in inline mode, through a pseudo-terminal: the file goes to the model, a note to the screen."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn
from tests.inline.conftest import in_order

FIRST_REPLY_S = 120.0  # the first reply waits for litellm's import on a busy box


def test_at_path_attaches_the_file_with_a_note(inline, fakellm, work: Path):
    (work / "calc").mkdir()
    (work / "calc" / "ops.py").write_text("def add(a, b):\n    return a + b\n")
    fakellm.script([Turn(text="It adds two numbers.")])
    term = inline()
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("explain @calc/ops.py \r")
    term.wait_for("It adds two numbers.", timeout=FIRST_REPLY_S)
    in_order(term.lines(), "› explain @calc/ops.py", "⎿ attached calc/ops.py (2 lines)", "It adds two numbers.")
    assert "return a + b" not in term.text()
    sent = fakellm.requests[-1]["messages"][-1]["content"]
    assert sent.startswith("explain @calc/ops.py \n\nContents of calc/ops.py (2 lines):\n```\ndef add(a, b):")
    term.send("/quit\r")
    assert term.exit_code() == 0
