"""What a session does is decided once, in runtime/handle.py: the app honours --max-budget-usd, its
/cost shows the context figure, and /export writes the same redacted Markdown as `flue sessions export`."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.cli import sessions as sessions_cli
from flue_tui.runtime.start import SessionOptions
from flue_tui.ui.transcript import NoticeEntry
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import idle, ready, submit, wait_for

SECRET = "sk-live-Qw7Er8Ty9"


def _notices(app) -> list[str]:
    return [e.text for e in app.transcript.entries if isinstance(e, NoticeEntry)]


async def test_the_app_stops_at_the_budget_and_cost_shows_the_context(make_app, fakellm, work: Path):
    # gpt-4o is priced in litellm's map: the first turn alone costs about $0.26, over the $0.01 limit.
    fakellm.script([Turn(calls=[Call("bash", {"command": "true"})], usage=(100000, 1000), repeat=5)])
    app = make_app(model="openai/gpt-4o", max_budget_usd=0.01, permission_mode="yolo")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        assert app.session.max_budget_usd == 0.01
        await submit(pilot, "spend")
        await wait_for(pilot, lambda: any("--max-budget-usd limit of $0.01" in n for n in _notices(app)), timeout=120)
        await idle(pilot)
        assert len(fakellm.requests) == 1
        await wait_for(pilot, lambda: app.context_window)
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: any(n.startswith("Tokens:") for n in _notices(app)))
        assert f"· context 101,000 of {app.context_window:,} tokens" in _notices(app)[-1]


async def test_the_apps_export_is_the_sessions_export(
    make_app, fakellm, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
):
    monkeypatch.setenv("DEMO_API_KEY", SECRET)
    fakellm.script([Turn(text=f"The key is {SECRET}.")])
    db = str(tmp_path / "s.db")
    app = make_app(options=SessionOptions(db=db))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, f"remember {SECRET}")
        await idle(pilot)
        sid = app.session.id
        await submit(pilot, "/export notes.md")
        await wait_for(pilot, lambda: any(n.startswith("Exported the conversation to notes.md") for n in _notices(app)))
        exported = (work / "notes.md").read_text(encoding="utf-8")
    capsys.readouterr()
    assert sessions_cli.main(["export", sid, "--db", db, "--cwd", str(work)]) == 0
    assert exported == capsys.readouterr().out
    assert SECRET not in exported and "[redacted DEMO_API_KEY]" in exported


async def test_export_never_overwrites_a_file(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="An answer.")])
    (work / "notes.md").write_text("mine\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "question")
        await idle(pilot)
        await submit(pilot, "/export notes.md")
        await wait_for(pilot, lambda: any("already exists" in n for n in _notices(app)))
    assert (work / "notes.md").read_text() == "mine\n"


async def test_export_to_a_home_path_writes_there(make_app, fakellm, work: Path, tmp_path: Path, monkeypatch):
    """`/export ~/notes.md` is the user's home, as in a shell, never a `~` directory in the workspace."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    fakellm.script([Turn(text="An answer.")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "question")
        await idle(pilot)
        await submit(pilot, "/export ~/notes.md")
        await wait_for(pilot, lambda: any("Exported" in n or "Cannot" in n for n in _notices(app)))
    assert "An answer." in (home / "notes.md").read_text()
