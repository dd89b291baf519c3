"""The app runs Claude Code's `.claude/commands` as `/name`: completion offers them (namespaced
ones too), `/skills` lists them with their hint and origin, a run is shown as typed. The folder is
tests/context/claude_folder (copied from anthropics/claude-code @ 5889ae69 and
1215-Labs/claude-code-templates @ 6a28e042 / @ 477f6634; its README names each file)."""

from __future__ import annotations

import shutil
from pathlib import Path

from flue_tui.ui.transcript import NoticeEntry, UserEntry
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, ready, submit, wait_for

FOLDER = Path(__file__).parent.parent / "context" / "claude_folder" / ".claude"


async def test_commands_complete_list_and_run_as_typed(make_app, fakellm, work: Path):
    shutil.copytree(FOLDER, work / ".claude")
    (work / ".claude" / "commands" / "help.md").write_text("Not the app's help.\n")
    fakellm.script(Turn(text="Found it."))
    app = make_app(trust_project=True)  # the copied commands' allowed-tools would ask for trust first
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"/workflow:r")
        await wait_for(pilot, lambda: app.completion.display and app.completion.inserts)
        assert app.completion.inserts == ["/workflow:rca "]
        app.prompt.set_text("")
        await submit(pilot, "/skills")

        def listing() -> str:
            return next(
                (e.text for e in app.transcript.entries if isinstance(e, NoticeEntry) and "/commit" in e.text), ""
            )

        await wait_for(pilot, listing)
        assert "/workflow:rca" in listing() and "<issue description or error message> (project)" in listing()
        assert "Hidden by the app's own commands of the same name: /help." in listing()
        await submit(pilot, "/help")  # the app's, never the repository's
        await wait_for(
            pilot, lambda: any("Commands:" in e.text for e in app.transcript.entries if isinstance(e, NoticeEntry))
        )
        await submit(pilot, "/workflow:rca the login page 500s")
        await idle(pilot)
        users = [e.text for e in app.transcript.entries if isinstance(e, UserEntry)]
        assert users[-1] == "/workflow:rca the login page 500s"
        sent = fakellm.requests[-1]["messages"][-1]["content"]
        assert "**Issue to investigate**: the login page 500s\n" in sent
        assert len(fakellm.requests) == 1  # /help never reached the model
