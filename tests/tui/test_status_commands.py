"""Issue 17's slash commands in the app: an unknown /word is answered locally (no request, no
session row), /clear is /new, and /status, /context, /permissions say what is in force."""

from __future__ import annotations

from pathlib import Path

from flue_tui.ui.transcript import NoticeEntry, UserEntry
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, ready, submit, wait_for


def _notices(app) -> list[str]:
    return [e.text for e in app.transcript.entries if isinstance(e, NoticeEntry)]


async def test_unknown_command_is_answered_locally_and_saves_nothing(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="should never be asked")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "/moddel openai/x")
        await wait_for(pilot, lambda: any("Unknown command /moddel — did you mean /model?" in n for n in _notices(app)))
        await submit(pilot, "/xyzzyq")
        await wait_for(pilot, lambda: any("Unknown command /xyzzyq. /help lists" in n for n in _notices(app)))
        await idle(pilot)
        assert fakellm.requests == []  # a typo costs no turn
        assert not [e for e in app.transcript.entries if isinstance(e, UserEntry)]
        assert not app.session.messages
        assert app.ctl.store.get(app.session.id) is None  # nor does it title a session in the picker
        assert app.ctl.store.list_sessions(str(work)) == []


async def test_clear_starts_a_fresh_session(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="hello")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await idle(pilot)
        first = app.session.id
        await submit(pilot, "/clear")
        await wait_for(pilot, lambda: app.session is not None and app.session.id != first)
        await idle(pilot)
        assert not app.session.messages
        assert len(fakellm.requests) == 1
        assert [i.title for i in app.ctl.store.list_sessions(str(work))] == ["hi"]  # "/clear" titled nothing


async def test_status_context_and_permissions(make_app, fakellm, work: Path):
    (work / "AGENTS.md").write_text("Always run the tests with make check.\n" * 20)
    fakellm.script([Turn(text="hello there")])
    app = make_app(allowed_tools=["bash(git status)"], disallowed_tools=["write(secrets/**)"], permission_mode="ask")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await idle(pilot)
        await submit(pilot, "/status")
        text = await wait_for(pilot, lambda: next((n for n in _notices(app) if n.startswith("Status:")), None))
        for needle in ("Model:", "openai/fake", app.session.id, "Mode:", "ask", str(work), "Sandbox:", "local"):
            assert needle in text
        assert "MCP servers:" in text and "Effort:" in text and "Cost:" in text
        await submit(pilot, "/context")
        text = await wait_for(pilot, lambda: next((n for n in _notices(app) if n.startswith("Context")), None))
        lines = {ln.split(":")[0].strip(): ln for ln in text.splitlines()}
        assert "Tool schemas (6 tools)" in lines or any(k.startswith("Tool schemas") for k in lines)
        agents = int(lines["AGENTS.md / CLAUDE.md"].split(":")[1].split()[0].replace(",", ""))
        assert agents == -(-len(("Always run the tests with make check.\n" * 20).strip()) // 4)
        assert int(lines["User messages"].split(":")[1].split()[0]) == 1  # "hi": 2 chars → 1 token
        await submit(pilot, "/permissions")
        text = await wait_for(pilot, lambda: next((n for n in _notices(app) if n.startswith("Permission mode")), None))
        assert "bash(git status)  — command line" in text
        assert "write(secrets/**)  — command line" in text
        assert len(fakellm.requests) == 1
