"""Issue 17's slash commands in the app: an unknown /word is answered locally (no request, no
session row), /clear is /new, and /status, /context, /permissions say what is in force."""

from __future__ import annotations

from pathlib import Path

from flue_tui.runtime.start import SessionOptions
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


async def test_cost_names_the_cache_share_the_children_and_an_unknown_price(make_app, fakellm, work: Path):
    from tests.test_totals import PARENT_AND_CHILD

    (work / "notes.txt").write_text("hi\n")
    fakellm.script(PARENT_AND_CHILD)
    app = make_app()  # openai/fake: litellm knows no price for it
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "parent job")
        await idle(pilot)
        await submit(pilot, "/cost")
        text = await wait_for(pilot, lambda: next((n for n in _notices(app) if n.startswith("Tokens:")), None))
        assert "Tokens: 900 in · 180 out · cost unknown · task sub-agents included" in text
        assert "  task sub-agents: 200 in · 40 out · cost unknown" in text
        # The sub-agent ran on the session's own model: named once (issue 30).
        assert "cost unknown for openai/fake: no price is known" in text
        sid = app.session.id
    resumed = make_app(options=SessionOptions(resume=sid))
    async with resumed.run_test(size=(120, 30)) as pilot:  # the children ran in an earlier run
        await ready(pilot)
        await idle(pilot)
        await submit(pilot, "/cost")
        text = await wait_for(pilot, lambda: next((n for n in _notices(resumed) if n.startswith("Tokens:")), None))
        assert "Tokens: 900 in · 180 out · cost unknown" in text
        assert "  task sub-agents: 200 in · 40 out · cost unknown" in text
        assert "cost unknown for a model of this session" in text  # a stored total says no more


async def test_cost_shows_what_the_cache_reads_cost(make_app, fakellm, work: Path):
    from flue_tui.model.loader import get_litellm

    fakellm.script([Turn(text="cached answer", usage=(10000, 100, 8000))])
    app = make_app(model="openai/gpt-4o")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await idle(pilot)
        await submit(pilot, "/cost")
        text = await wait_for(pilot, lambda: next((n for n in _notices(app) if n.startswith("Tokens:")), None))
    info = get_litellm().get_model_info("openai/gpt-4o")
    cache = 8000 * info["cache_read_input_token_cost"]
    total = app.router.status.total
    assert total.cache_read == 8000 and total.priced and total.cost > cache
    assert f"  cache: 8,000 tokens read, 0 written · ${cache:.4f} ({100 * cache / total.cost:.0f}% of the cost)" in text
    assert "task sub-agents" not in text and "unknown" not in text


def _user_texts(request: dict) -> str:
    return "\n".join(str(m.get("content")) for m in request["messages"] if m.get("role") == "user")


async def test_init_runs_the_packaged_skill_and_a_project_skill_overrides_it(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="Wrote AGENTS.md."), Turn(text="Ran yours.")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/help")
        await wait_for(pilot, lambda: any("/clear" in n and "/init" in n for n in _notices(app)))
        await submit(pilot, "/init")
        await idle(pilot)
        sent = _user_texts(fakellm.requests[-1])
        assert 'Run the skill named "init".' in sent and "# Write AGENTS.md for this repository" in sent
    skill = work / ".agents" / "skills" / "init"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: init\ndescription: Our own AGENTS.md recipe.\n---\nDo it our way.\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/init keep it short")
        await idle(pilot)
        request = fakellm.requests[-1]
        sent = _user_texts(request)
        assert sent.startswith('Run the skill named "init".') and "# Write AGENTS.md" not in sent
        assert "keep it short" in sent and "Our own AGENTS.md recipe." in str(request["messages"][0])
