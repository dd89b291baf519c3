"""On a dumb terminal (TERM=dumb) inline mode asks in plain lines read with Enter: a permission
question during a turn must take the typed answer when Enter is pressed (the terminal sends CR)."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn

SLOW_S = 120.0


def test_a_dumb_terminal_answers_a_permission_question_with_enter(inline, fakellm, work: Path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo hi-dumb"})]), Turn(text="Ran it.")])
    term = inline("--permission-mode", "ask", "run it", env={"TERM": "dumb"})
    term.wait_for("[3] deny >", timeout=SLOW_S)
    term.send("1\r")
    term.wait_for("Ran it.", timeout=SLOW_S)
    results = [m for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"]
    assert "hi-dumb" in results[0]["content"]
    assert term.text().count("Run command?") == 1  # asked once, not by inline mode and again by the line question


def test_bare_resume_reads_the_number_with_enter(inline, fakellm, flue_main, work: Path):
    """`flue --inline --resume` asks for a number on a line while the rest of the run is quiet."""
    fakellm.script([Turn(text="First answer."), Turn(text="Second answer.")])
    assert flue_main("-p", "remember this", "--model", "openai/fake", cwd=work).code == 0
    term = inline("--resume")
    term.wait_for("Resume which session?", timeout=SLOW_S)
    term.send("1\r")
    term.wait_for("Resumed", timeout=SLOW_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("and now?\r")
    term.wait_for("Second answer.", timeout=SLOW_S)
    assert [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "user"] == [
        "remember this",
        "and now?",
    ]
