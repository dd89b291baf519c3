"""Background commands in `flue --inline` (a pseudo-terminal): the toolbar counts the running ones,
one that ends gets its line, and the idle model a follow-up turn (ui/bashes.py EndedJobs); what
the user had typed at the prompt meanwhile is still there."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.inline.conftest import CTRL_C

BUILD = "echo building; while [ ! -e go ]; do sleep 0.1; done; echo built"


def test_the_toolbar_counts_them_and_the_model_hears_when_one_ends(inline, fakellm, work: Path):
    fakellm.script(
        [
            Turn(calls=[Call("bash_background", {"command": BUILD}, id="s")]),
            Turn(text="The build is running."),
            Turn(text="The build finished: built."),
        ]
    )
    term = inline("--permission-mode", "yolo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("start the build\r")
    term.wait_for("The build is running.")
    term.wait(lambda t: "1 bg" in term.screen_text(), what="the toolbar's count")
    term.send("half typed")
    term.wait(lambda t: "half typed" in term.prompt_line(), what="the typed text")
    assert len(fakellm.requests) == 2
    (work / "go").write_text("")
    term.wait_for("The build finished: built.")
    flat = " ".join(term.text().split())
    assert f"Background command bg1 ({BUILD}) exited with code 0." in flat
    assert "<signal" not in term.text()
    told = fakellm.requests[2]["messages"][-1]["content"]
    assert told.startswith('<signal type="background_command">\nBackground command bg1 (')
    term.wait(lambda t: "half typed" in term.prompt_line(), what="the typed text back")
    term.wait(lambda t: "1 bg" not in term.screen_text(), what="the count gone")
    term.send(CTRL_C + CTRL_C)
    assert term.exit_code() == 0


def test_inline_runs_in_a_worktree_session(inline, fakellm, work: Path):
    import subprocess

    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(["git", *args], cwd=work, check=True, env={**__import__("os").environ, **env})
    fakellm.script([Turn(text="Working apart.")])
    term = inline("-w", "feat")
    tree = work.parent / "work.worktrees" / "feat"
    term.wait(lambda t: "Welcome to flue" in t and "work.worktrees/feat" in t, what="the welcome in the worktree")
    term.wait(lambda t: "· feat ·" in term.screen_text(), what="the session named after it")
    term.send("hello\r")
    term.wait_for("Working apart.")
    assert str(tree) in fakellm.requests[0]["messages"][0]["content"]
    term.send(CTRL_C + CTRL_C)
    assert term.exit_code() == 0
