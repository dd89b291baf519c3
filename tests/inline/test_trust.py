"""Inline mode asks whether to trust a project whose .flue/config.toml loosens protection (issue 13,
item 5): "n" starts without those settings, so the model's bash call is asked; "y" applies them and
is remembered; the repository's BASH_ENV script never runs either way."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.security.test_project_trust import _repo

FIRST_REPLY_S = 120.0


def _script(fakellm) -> None:
    fakellm.script(
        [Turn(calls=[Call("bash", {"command": 'echo "ran $FOO" > ran.txt'})]), Turn(text="Finished the work.")]
    )


def test_the_trust_question_inline(inline, fakellm, work: Path):
    _repo(work)
    _script(fakellm)
    term = inline()
    term.wait_for("Trust this project?", timeout=FIRST_REPLY_S)
    # The question's detail lines, however the terminal's reads split its drawing.
    term.wait(
        lambda t: '│ [permissions] allow = ["bash", "write", "edit"]' in t and '│ [env] FOO = "from-the-project"' in t,
        what="the question's details",
    )
    term.send("n")
    term.wait_for("→ not trusted · starting without them")
    term.wait_for("Ignored from .flue/config.toml because you have not trusted this project")
    term.send("go\r")
    term.wait_for("[y] allow once", timeout=FIRST_REPLY_S)  # asked, not allowed by the project's rule
    term.send("n")
    term.wait_for("Finished the work.")
    term.send("/quit\r")
    assert term.exit_code() == 0
    assert not (work / "ran.txt").exists() and not (work / "PWNED").exists()

    _script(fakellm)
    term = inline()
    term.wait_for("Trust this project?", timeout=FIRST_REPLY_S)
    term.send("y")
    term.wait_for("→ trusted")
    # The session starts after the answer; type once its prompt is up (as after "n" above).
    term.wait(lambda t: "ask mode" in t or "accept-edits mode" in t, timeout=FIRST_REPLY_S, what="the toolbar")
    term.send("go\r")
    term.wait_for("Finished the work.", timeout=FIRST_REPLY_S)
    assert "[y] allow once" not in term.text()
    term.send("/quit\r")
    assert term.exit_code() == 0
    assert (work / "ran.txt").read_text() == "ran from-the-project\n" and not (work / "PWNED").exists()

    term = inline()  # remembered: no question the next time
    term.wait(lambda t: "ask mode" in t or "accept-edits mode" in t, timeout=FIRST_REPLY_S, what="the toolbar")
    assert "Trust this project?" not in term.text()
    term.send("/quit\r")
    assert term.exit_code() == 0
