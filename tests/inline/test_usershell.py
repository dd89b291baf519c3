"""`!command` in `flue --inline` (a pseudo-terminal): the user's own command is drawn as a bash
block with its exit code, sends no model request, reaches the model's next turn, can be undone, and
`--continue` draws it again the same way."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn
from tests.inline.conftest import CTRL_C, in_order

FIRST_REPLY_S = 120.0


def test_bang_inline_runs_reaches_the_model_undoes_and_resumes(inline, fakellm, work: Path):
    (work / "keep.txt").write_text("precious\n")
    fakellm.script([Turn(text="Noted the listing.")])
    term = inline("--permission-mode", "ask", env={"ANTHROPIC_API_KEY": "sk-ant-inline-secret"})
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt", timeout=FIRST_REPLY_S)
    term.send("!\r")
    term.wait_for("Type a command after !")
    term.send("!echo hi-inline; nosuchcommand-xyz\r")
    term.wait_for("exit 127", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt again")
    assert fakellm.requests == []
    live = [ln for ln in term.lines() if "bash  echo hi-inline" in ln]
    assert live and "exit 127" in live[0], term.text()
    assert any(ln.strip() == "hi-inline" for ln in term.lines()), term.text()  # the user's own output is shown

    term.send("!env\r")
    term.wait(lambda t: t.count("exit 0") >= 1, what="env's block")
    term.wait(lambda t: any(ln.strip().startswith("PATH=") for ln in term.lines()), what="env's output")
    assert "sk-ant-inline-secret" not in term.text()
    term.wait(lambda t: "›" in term.prompt_line())
    term.send("!rm keep.txt\r")
    term.wait(lambda t: not (work / "keep.txt").exists(), what="rm ran")
    term.wait(lambda t: "›" in term.prompt_line())
    term.send("/undo\r")
    term.wait_for("Files are back to just before message 3")
    assert (work / "keep.txt").read_text() == "precious\n"

    term.send("what did I run?\r")
    term.wait_for("Noted the listing.")
    users = [m["content"] for m in fakellm.requests[-1]["messages"] if m["role"] == "user"]
    assert users[0].startswith("<bash-input>echo hi-inline; nosuchcommand-xyz</bash-input>\n<bash-stdout>hi-inline")
    assert "nosuchcommand-xyz" in users[0] and users[0].endswith("<bash-exit-code>127</bash-exit-code>")
    assert "sk-ant-inline-secret" not in users[1] and "ANTHROPIC_API_KEY" not in users[1]
    assert users[2].startswith("<bash-input>rm keep.txt</bash-input>")
    assert users[3] == "what did I run?"
    term.send(CTRL_C)
    term.wait_for("Ctrl+C again to quit")
    term.send(CTRL_C)
    assert term.exit_code() == 0

    again = inline("--continue")
    again.wait_for("Resumed", timeout=FIRST_REPLY_S)
    lines = again.lines()
    in_order(lines, "bash  echo hi-inline", "bash  rm keep.txt", "› what did I run?", "Noted the listing.")
    assert next(ln for ln in lines if "bash  echo hi-inline" in ln).strip() == live[0].strip()
    assert any(ln.strip() == "hi-inline" for ln in lines)  # resumed as it was live
    assert "<bash-input>" not in "\n".join(lines)
    again.send(CTRL_C)
    again.send(CTRL_C)
