"""`flue --inline` driven through a pseudo-terminal against the scripted model server.

Each process imports litellm (5–15 s on a busy box), so each test is one process walking
through several steps, as a person would in one sitting.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.fakellm import Call, Turn
from tests.inline.conftest import CTRL_C, ESC, SPINNER, TAB, UP, in_order

# The first reply waits for litellm's import, which takes 5–30 s on a busy 2-core box.
FIRST_REPLY_S = 120.0
ANSWER = (
    "First paragraph of the answer.\n\n"
    "- a bullet\n- another bullet\n\n"
    "```python\ndef f():\n    return 1\n```\n\n"
    "Last paragraph of the answer."
)


def test_a_conversation_lands_in_the_scrollback_in_order(inline, fakellm, work: Path):
    (work / "notes.txt").write_text("one\ntwo\n")
    (work / "app.py").write_text("def f():\n    return 1\n")
    fakellm.script(
        [
            Turn(text=ANSWER, chunk_delay=0.12),
            Turn(calls=[Call("read", {"path": "notes.txt"})]),
            Turn(
                calls=[
                    Call(
                        "bash",
                        {
                            "command": "echo tail-one; until [ -e go1 ]; do sleep 0.05; done; "
                            "echo tail-two; until [ -e go2 ]; do sleep 0.05; done"
                        },
                    )
                ]
            ),
            Turn(calls=[Call("edit", {"path": "app.py", "oldText": "return 1", "newText": "return 2"})]),
            Turn(calls=[Call("task", {"prompt": "child job", "agent": "flue-general", "description": "look around"})]),
            Turn(match="child job", calls=[Call("bash", {"command": "echo child-out"})]),
            Turn(match="child job", text="The child found nothing odd."),
            Turn(text="All **done**: the edit is in place."),
        ]
    )
    term = inline("--permission-mode", "yolo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("explain it\r")

    # Streamed: the first paragraph is rendered (the order of paragraphs is checked below). Whether
    # the last has arrived by then depends on how fast the terminal is read, so it is not asserted.
    term.wait_for("First paragraph of the answer.", timeout=FIRST_REPLY_S)
    term.wait_for("1 turn ·")

    term.send("do the work\r")
    # The running command's tail changes in place before the command ends.
    # The command waits for files the test creates, so each step holds however slow the machine.
    term.wait(lambda t: "│ tail-one" in term.screen_text(), what="the first tail line")
    assert "│ tail-two" not in term.screen_text()
    (work / "go1").touch()
    term.wait(lambda t: "│ tail-two" in term.screen_text(), what="the tail to change")
    assert "✓ bash  echo tail-one" not in term.text()  # still running
    (work / "go2").touch()
    term.wait_for("All done: the edit is in place.")
    term.wait_for("5 turns ·")
    term.wait(lambda t: "›" in term.prompt_line())

    lines = term.lines()
    at = in_order(
        lines,
        "› explain it",
        "First paragraph of the answer.",
        "• a bullet",
        "def f():",
        "Last paragraph of the answer.",
        "1 turn ·",
        "› do the work",
        "✓ read  notes.txt",
        "✓ bash  echo tail-one; until",
        "✓ edit  app.py  +1 −1",
        "-    return 1",
        "+    return 2",
        "▸ task  flue-general · look around",
        "│ ✓ bash  echo child-out  exit 0",
        "│ The child found nothing odd.",
        "✓ task  flue-general",
        "All done: the edit is in place.",
        "5 turns ·",
    )
    # Written once: no line appears twice, no spinner frame or live tail was left behind.
    for needle in ("First paragraph of the answer.", "Last paragraph", "✓ read", "▸ task", "All done"):
        assert sum(needle in ln for ln in lines) == 1, needle
    assert not any(ch in ln for ln in lines for ch in SPINNER)
    assert not any("tail-one" in ln for ln in lines[at[6] :] if "echo tail-one" not in ln)
    assert (work / "app.py").read_text() == "def f():\n    return 2\n"

    term.send(CTRL_C)
    term.wait_for("Ctrl+C again to quit")
    term.send(CTRL_C)
    assert term.exit_code() == 0


def test_input_history_completion_permission_and_interrupt(inline, fakellm, work: Path, history_file):
    (work / ".gitignore").write_text("build/\n")
    (work / "README.md").write_text("# hi\n")
    (work / "build").mkdir()
    (work / "build" / "READY.txt").write_text("ignored\n")
    fakellm.script(
        [
            Turn(match="long one", calls=[Call("bash", {"command": "echo started; sleep 30"})]),
            Turn(match="long one", text="Back after the interrupt."),
        ]
    )
    term = inline()  # the app's default: ask before bash
    term.wait(lambda t: "ask mode" in t, what="the toolbar")

    # `@` completes paths, gitignore-aware; Tab takes the first; Esc Esc clears the input.
    term.send("look at @REA")
    term.wait(lambda t: "README.md" in term.screen_text(), what="the completion menu")
    assert "READY.txt" not in term.screen_text()
    term.send(TAB)
    term.wait(lambda t: term.prompt_line() == "› look at @README.md", what="the completed path")
    term.send(ESC + ESC)
    term.wait(lambda t: term.prompt_line() == "›", what="the input to clear")

    # A permission question is one key; Ctrl+C then interrupts the running command.
    term.send("run the long one\r")
    term.wait_for("[y] allow once", timeout=FIRST_REPLY_S)
    term.send("y")
    term.wait_for("→ allowed once")
    term.wait(lambda t: "│ started" in term.screen_text(), what="the command to start")
    term.send(CTRL_C)
    term.wait_for("Interrupted. The session is intact")
    term.wait_for("✗ bash  echo started; sleep 30  interrupted")
    term.wait(lambda t: term.prompt_line() == "›")

    # Up recalls the last prompt; the session goes on.
    term.send(UP)
    term.wait(lambda t: term.prompt_line() == "› run the long one", what="history recall")
    term.send(ESC + ESC)
    term.wait(lambda t: term.prompt_line() == "›")
    term.send("again after the long one\r")
    term.wait_for("Back after the interrupt.")
    term.wait(lambda t: term.prompt_line() == "›")

    saved = [json.loads(line)["text"] for line in history_file(work).read_text().splitlines()]
    assert saved == ["run the long one", "again after the long one"]
    term.send("/quit\r")
    assert term.exit_code() == 0


def test_dumb_terminal_gets_plain_text(inline, fakellm, work: Path):
    fakellm.script(
        [
            Turn(match="hello", calls=[Call("bash", {"command": "echo hi"})]),
            Turn(match="hello", text="Hello **there**."),
        ]
    )
    term = inline("--permission-mode", "yolo", "hello", env={"TERM": "dumb"})
    term.wait_for("Hello **there**.", timeout=FIRST_REPLY_S)  # raw Markdown: nothing is re-rendered on a dumb terminal
    term.send("/quit\r")
    assert term.exit_code() == 0
    raw = "".join(term.raw)
    assert "✓ bash  echo hi  exit 0" in raw
    assert not re.search(r"\x1b\[[0-9;]*m", raw), "no colours"
    assert not re.search(r"\x1b\[\d*[AK]", raw), "no cursor movement or erasing"
