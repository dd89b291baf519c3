"""Inline mode: local commands typed the moment the prompt shows, while the session may still be
starting, each answer on their own, in order, and none reaches the model (issue 28)."""

from __future__ import annotations

COMMANDS = ("/status", "/cost", "/context", "/permissions")
MARKERS = ("Status:", "Tokens: ", "Context (estimated", "Permission mode: ")


def test_commands_typed_at_launch_answer_one_by_one(inline, fakellm) -> None:
    term = inline()
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("".join(f"{command}\r" for command in COMMANDS))  # typed ahead, all at once
    text = term.wait(lambda t: all(m in t for m in MARKERS), what="every answer")
    lines = term.lines()
    found = [next(i for i, line in enumerate(lines) if m in line) for m in MARKERS]
    assert found == sorted(found), text
    assert "/cost/context" not in text and "No session yet" not in text and "not started" not in text
    assert fakellm.requests == []
    term.send("/quit\r")
    assert term.exit_code() == 0
