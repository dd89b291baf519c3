"""Inline mode drives the same SessionHandle as the app (runtime/handle.py): --max-budget-usd stops
a run, /cost shows the context figure, /model without an id opens the picker, and /export writes what
`flue sessions export` writes. One process, as a person would use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.cli import sessions as sessions_cli
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Call, Turn

FIRST_REPLY_S = 120.0


def test_budget_cost_model_and_export_as_in_the_app(
    inline, fakellm, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    # gpt-4o is priced in litellm's map: the first turn alone costs about $0.26, over the $0.01 limit.
    fakellm.script([Turn(calls=[Call("bash", {"command": "true"})], usage=(100000, 1000), repeat=5)])
    db = str(tmp_path / "s.db")
    term = inline(
        "--model", "openai/gpt-4o", "--max-budget-usd", "0.01", "--permission-mode", "yolo", "--db", db, cols=160
    )
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("spend\r")
    term.wait_for("over the --max-budget-usd limit of $0.01", timeout=FIRST_REPLY_S)
    assert len(fakellm.requests) == 1
    term.send("/cost\r")
    term.wait_for("· context 101,000 of ")
    term.send("/model\r")
    term.wait_for("openai/gpt-4o ●")  # the picker, the current model marked
    term.send("\x1b")
    term.wait_for("No model chosen; still openai/gpt-4o.")
    term.send("/export notes.md\r")
    term.wait_for("Exported the conversation to notes.md")
    exported = (work / "notes.md").read_text(encoding="utf-8")
    with SessionStore.open(db) as store:
        sid = store.newest(str(work)).id
    capsys.readouterr()
    assert sessions_cli.main(["export", sid, "--db", db, "--cwd", str(work)]) == 0
    assert exported == capsys.readouterr().out
