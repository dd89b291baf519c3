"""/undo and /rewind in `flue --inline` (a pseudo-terminal): files back to a checkpoint, and a
conversation rewind that continues on a fork with the chosen message back in the prompt."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn

FIRST_REPLY_S = 120.0


def test_undo_and_rewind_inline(inline, fakellm, work: Path):
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "a.txt", "content": "one\n"})]),
            Turn(text="Made it."),
            Turn(calls=[Call("edit", {"path": "a.txt", "oldText": "one", "newText": "two"})]),
            Turn(text="Changed it."),
            Turn(text="Again on the fork."),
        ]
    )
    term = inline("--permission-mode", "yolo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("make a\r")
    term.wait_for("Made it.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line())
    term.send("change a\r")
    term.wait_for("Changed it.")
    term.wait(lambda t: "›" in term.prompt_line())
    assert (work / "a.txt").read_text() == "two\n"

    term.send("/undo\r")
    term.wait_for("Files are back to just before message 2")
    assert (work / "a.txt").read_text() == "one\n"
    term.send("/rewind\r")
    term.wait_for("2. change a")
    term.send("/rewind 1 code\r")
    term.wait_for("Files are back to just before message 1")
    assert not (work / "a.txt").exists()
    term.send("/rewind 2 conversation\r")
    term.wait_for("Continuing on a fork from just before message 2")
    term.wait(lambda t: "change a" in term.prompt_line(), what="message 2 back in the prompt")
    term.send("\r")
    term.wait_for("Again on the fork.")
    users = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "user"]
    assert users == ["make a", "change a"]


def test_a_rewind_that_would_replace_others_files_asks_inline(inline, fakellm, work: Path):
    """Issue 23: the question names the file no turn of this session left; n changes nothing, y goes
    ahead. Issue 30: /undo then says "Rewind undone", with /redo as the way back."""
    fakellm.script([Turn(calls=[Call("write", {"path": "a.txt", "content": "one\n"})]), Turn(text="Made it.")])
    term = inline("--permission-mode", "yolo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("make a\r")
    term.wait_for("Made it.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line())
    (work / "other.txt").write_text("not this session's\n")

    term.send("/rewind 1 code\r")
    term.wait_for("[n] no, change nothing")
    assert "│ other.txt" in term.text()
    term.send("n")
    term.wait_for("Nothing was changed")
    assert (work / "other.txt").exists() and (work / "a.txt").exists()
    term.wait(lambda t: "›" in term.prompt_line())
    term.send("/rewind 1 code\r")
    term.wait(lambda t: t.count("│ other.txt") == 2 and "[n] no, change nothing" in t, what="the question again")
    term.send("y")
    term.wait_for("Also replaced: other.txt")
    assert not (work / "other.txt").exists() and not (work / "a.txt").exists()
    term.wait(lambda t: "›" in term.prompt_line())
    term.send("/undo\r")
    term.wait_for("Rewind undone")
    assert (work / "other.txt").exists() and (work / "a.txt").exists()
    assert "flue sessions rewind" not in term.text()


def test_a_checkpoint_not_taken_is_said_inline(inline, fakellm, work: Path, tmp_path: Path):
    """Issue 23: not only in the events stream; one line, once per session."""
    broken = tmp_path / "git-broken"
    broken.write_text(
        '#!/bin/sh\nif [ "$1" = write-tree ]; then echo "fatal: simulated" >&2; exit 128; fi\nexec git "$@"\n'
    )
    broken.chmod(0o755)
    (work / "a.txt").write_text("a\n")
    fakellm.script([Turn(text="One."), Turn(text="Two.")])
    term = inline(env={"FLUE_GIT": str(broken)})
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("hello\r")
    term.wait_for("One.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line())
    term.send("again\r")
    term.wait_for("Two.")
    said = [ln for ln in term.lines() if "File checkpoint before message" in ln]
    assert len(said) == 1 and "not taken (fatal: simulated)" in said[0], term.text()
