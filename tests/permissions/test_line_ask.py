"""The plain front end's terminal questions: the request on stderr, the answer read from stdin."""

from __future__ import annotations

import io

from flue_tui.permissions.asking import ask_on_terminal
from flue_tui.permissions.policy import Approval, ApprovalRequest

REQUEST = ApprovalRequest(
    "bash",
    "c1",
    {"command": "git status"},
    "execute",
    "ask",
    "Run command",
    "git status",
    "command",
    ("bash(git status *)",),
)


async def _answer(monkeypatch, capsys, stdin: str) -> tuple[Approval, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    answer = await ask_on_terminal(REQUEST)
    return answer, capsys.readouterr().err


async def test_each_answer(monkeypatch, capsys):
    answer, shown = await _answer(monkeypatch, capsys, "1\n")
    assert answer == Approval("once")
    assert "Run command?  (bash · ask mode)" in shown and "  │ git status" in shown
    assert (await _answer(monkeypatch, capsys, "what\n2\n"))[0] == Approval("session")  # asks again
    assert (await _answer(monkeypatch, capsys, "3\nuse make instead\n"))[0] == Approval("deny", "use make instead")


async def test_closed_stdin_denies(monkeypatch, capsys):
    assert (await _answer(monkeypatch, capsys, ""))[0] == Approval("deny")
