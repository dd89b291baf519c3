"""Inline `--continue` prints a session's history exactly as it was printed live (issue 17): a
task's child steps nested under it with its answer as rendered Markdown, tool durations, a skill
run as typed, an edit's diff once."""

from __future__ import annotations

import re
from pathlib import Path

from tests.fakellm import Call, Turn
from tests.inline.conftest import CTRL_C, Term
from tests.tui.test_resume_view import SCRIPT, workspace

FIRST_REPLY_S = 120.0
TURNS = re.compile(r"^\d+ turns? · ")


def transcript(term: Term, start: str, end: str) -> list[str]:
    """The printed lines from the first one holding `start` to the last one holding `end`."""
    lines = term.lines()
    first = next(i for i, ln in enumerate(lines) if start in ln)
    last = max(i for i, ln in enumerate(lines) if end in ln)
    # A run's own summary line (`3 turns · 32.6s · …`) is about that run, not part of the history.
    return [ln for ln in lines[first : last + 1] if ln.strip() and not ln.startswith("›") and not TURNS.match(ln)]


def quit_(term: Term) -> None:
    term.send(CTRL_C)
    term.wait_for("Ctrl+C again to quit")
    term.send(CTRL_C)
    assert term.exit_code() == 0


def test_resume_prints_history_exactly_as_live(inline, fakellm, work: Path):
    workspace(work)
    fakellm.script(SCRIPT)
    term = inline("--permission-mode", "yolo", rows=60, cols=110)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("do the job\r")
    term.wait_for("All done: the kid says hi.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt again")
    term.send("/release-notes since v0.1\r")
    term.wait_for("Release notes: nothing new.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt after the skill")
    live = transcript(term, "▸ task", "Release notes: nothing new.")
    quit_(term)

    again = inline("--continue", rows=60, cols=110)
    again.wait_for("Resumed", timeout=FIRST_REPLY_S)
    text = again.text()
    print("\n".join(live), "\n=====\n", text)
    assert "› /release-notes since v0.1" in text and "Run the skill" not in text
    assert "**Kid report**" not in text and "Kid report: notes say hi." in text  # rendered Markdown
    resumed = transcript(again, "▸ task", "Release notes: nothing new.")
    assert resumed == live
    quit_(again)


def test_an_edit_diff_is_printed_once(inline, fakellm, work: Path):
    (work / "a.txt").write_text("one\ntwo\n")
    fakellm.script(
        [
            Turn(calls=[Call("edit", {"path": "a.txt", "oldText": "two", "newText": "TWO-NEW"})]),
            Turn(text="Edited."),
        ]
    )
    term = inline("--permission-mode", "ask")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("change it\r")
    term.wait_for("[y] allow once", timeout=FIRST_REPLY_S)
    term.send("y")
    term.wait_for("Edited.", timeout=FIRST_REPLY_S)
    assert sum("+TWO-NEW" in ln for ln in term.lines()) == 1, term.text()
    quit_(term)
