"""Slash commands, completion, history, sessions (/name, /new, the picker) and quitting."""

from __future__ import annotations

import asyncio
from pathlib import Path

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp
from flue_tui.tui.screens.picker import SessionPicker
from flue_tui.ui.transcript import NoticeEntry, UserEntry
from tests.fakellm.script import Turn
from tests.tui.conftest import idle, loaded, ready, screen_text, status_bar, submit, wait_for


def _notices(app) -> list[str]:
    return [e.text for e in app.transcript.entries if isinstance(e, NoticeEntry)]


def _users(app) -> list[str]:
    return [e.text for e in app.transcript.entries if isinstance(e, UserEntry)]


async def test_name_names_the_session_in_the_store(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="hello"), Turn(text="again")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "/name auth-work")  # before the first message: the row is created with it
        await wait_for(pilot, lambda: "auth-work" in screen_text(app))
        await submit(pilot, "hi")
        await idle(pilot)
        store = app.ctl.store
        assert store.by_name("auth-work", str(work)).id == app.session.id
        await submit(pilot, "/name login-fix")
        await idle(pilot)
        assert store.by_name("login-fix", str(work)).id == app.session.id
        assert store.by_name("auth-work", str(work)) is None
        await wait_for(pilot, lambda: "login-fix" in status_bar(app))


async def test_new_then_picker_resumes_the_old_session(make_app, fakellm, work: Path):
    fakellm.script(
        [Turn(match="remember alpha", text="Noted alpha."), Turn(match="remember alpha", text="You said alpha.")]
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "remember alpha")
        await idle(pilot)
        first = app.session.id
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: app.session is not None and app.session.id != first)
        await idle(pilot)
        assert "remember alpha" not in _users(app) and not app.session.messages
        await submit(pilot, "/resume")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen)
        await wait_for(pilot, lambda: picker.shown)
        assert [s.id for s in picker.shown] == [first]  # the empty new session was never saved
        assert "remember alpha" in screen_text(app)
        words = " ".join(screen_text(app).split())  # the title wraps under a long directory
        assert "· 1 session " in words and "1 sessions" not in words, words
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is not None and app.session.id == first)
        await idle(pilot)
        screen = screen_text(app)
        assert "remember alpha" in screen and "Noted alpha." in screen
        await submit(pilot, "what did I say?")
        await idle(pilot)
        sent = fakellm.requests[-1]["messages"]
        assert [m["content"] for m in sent if m["role"] == "user"] == ["remember alpha", "what did I say?"]
        assert "You said alpha." in screen_text(app)


async def test_picker_filters_and_deletes(make_app, fakellm, work: Path):
    fakellm.script([Turn(text="one"), Turn(text="two")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "alpha session")
        await idle(pilot)
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: app.session is not None and not app.session.messages and not app.busy)
        await submit(pilot, "beta session")
        await idle(pilot)
        await submit(pilot, "/resume")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen)
        await wait_for(pilot, lambda: len(picker.shown) == 2)
        await pilot.press(*"alp")
        assert [s.title for s in picker.shown] == ["alpha session"]
        await pilot.press("tab", "d")
        await wait_for(pilot, lambda: "cannot be undone" in screen_text(app))
        await pilot.press("y")
        await wait_for(pilot, lambda: not picker.sessions or len(picker.sessions) == 1)
        assert [s.title for s in app.ctl.store.list_sessions(str(work))] == ["beta session"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionPicker))


async def test_at_completes_paths_honouring_gitignore(make_app, work: Path):
    (work / "src").mkdir()
    (work / "src" / "main.py").write_text("")
    (work / "src" / "util.py").write_text("")
    (work / "build").mkdir()
    (work / "build" / "main_out.py").write_text("")
    (work / ".gitignore").write_text("build/\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.paths.ready)
        await pilot.press(*"look at ", "@", *"main")
        await wait_for(pilot, lambda: app.completion.display and app.completion.inserts)
        assert app.completion.inserts == ["@src/main.py "]  # build/ is ignored
        await pilot.press("tab")
        assert app.prompt.text == "look at @src/main.py "
        assert not app.completion.display


async def test_a_completed_path_with_spaces_is_attached(make_app, fakellm, work: Path):
    """The completion quotes a path with spaces (`@"my notes/a b.txt"`); that form attaches the file
    (before, it was left as typed and the model never saw the file)."""
    (work / "my notes").mkdir()
    (work / "my notes" / "a b.txt").write_text("spaced content\n")
    fakellm.script([Turn(text="Read it.")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.paths.ready)
        await pilot.press(*"explain ", "@", *"b.txt")
        await wait_for(pilot, lambda: app.completion.display and app.completion.inserts)
        assert app.completion.inserts[0] == '@"my notes/a b.txt" '
        await pilot.press("tab", "enter")
        await idle(pilot)
        assert "attached my notes/a b.txt (1 line)" in screen_text(app), screen_text(app)
    sent = fakellm.requests[-1]["messages"][-1]["content"]
    assert "spaced content" in sent and sent.startswith('explain @"my notes/a b.txt"')


async def test_enter_sends_a_path_prompt_while_the_files_are_still_being_indexed(make_app, fakellm, work: Path):
    """`indexing files…` is a note, not a choice: Enter sends what was typed (before, it was eaten).
    The index is built after the session's start, so a prompt typed at once meets it."""
    from flue_tui.ui.pathindex import PathIndex

    (work / "notes.txt").write_text("hi\n")
    fakellm.script([Turn(text="It says hi.")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.prompt.paths = PathIndex(str(work))  # a real index, not built yet
        await pilot.press(*"explain @notes.txt")
        await wait_for(pilot, lambda: app.completion.display and app.completion.choice == "")
        await pilot.press("enter")
        await idle(pilot)
        assert fakellm.requests and "notes.txt" in str(fakellm.requests[0]["messages"])
        assert app.prompt.text == ""


async def test_an_at_path_typed_before_the_index_is_built_gets_its_list_when_it_is(make_app, work: Path):
    from flue_tui.ui.pathindex import PathIndex

    (work / "notes.txt").write_text("hi\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.prompt.paths = index = PathIndex(str(work))  # a real index, not built yet
        await pilot.press(*"explain @note")
        await wait_for(pilot, lambda: app.completion.display and app.completion.choice == "")
        await asyncio.to_thread(index.build)
        app.prompt.paths_ready()  # what the app calls once its index is built
        await wait_for(pilot, lambda: app.completion.inserts == ["@notes.txt "])


async def test_slash_completes_commands_and_help(make_app):
    app = make_app()
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot)
        await pilot.press("/", "h", "e")
        await wait_for(pilot, lambda: app.completion.display)
        assert app.completion.inserts == ["/help "]
        await pilot.press("enter")  # completes and runs: /help takes no argument
        await wait_for(pilot, lambda: any("Commands:" in n for n in _notices(app)))
        assert app.prompt.text == ""
        help_text = next(n for n in _notices(app) if "Commands:" in n)
        for name in ("/new", "/resume", "/name", "/model", "/compact", "/skills", "/cost", "/export", "/quit"):
            assert name in help_text
        await pilot.press("/", "n", "a", "tab")  # /name needs its argument: completed, not sent
        assert app.prompt.text == "/name "


async def test_cost_compact_export_and_model(make_app, fakellm, work: Path):
    fakellm.script(
        [
            Turn(text="An answer.", usage=(120, 30)),
            Turn(match="question one", text="## Goal\nA summary."),
            Turn(text="From the other model."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "question one")
        await idle(pilot)
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: any(n.startswith("Tokens:") for n in _notices(app)))
        assert "Tokens: 120 in · 30 out" in _notices(app)[-1]
        await submit(pilot, "/compact")
        # Two short messages: nothing to compact, and the app says why.
        await wait_for(
            pilot,
            lambda: (
                not app.busy
                and _notices(app)[-1].startswith("Nothing to compact: the conversation is too short (2 messages, ~")
            ),
        )
        await submit(pilot, "/export notes.md")
        await wait_for(pilot, lambda: (work / "notes.md").exists())
        exported = (work / "notes.md").read_text()
        assert "question one" in exported and "An answer." in exported
        await submit(pilot, "/model openai/other-model")
        await wait_for(pilot, lambda: app.settings.model == "openai/other-model")
        await submit(pilot, "next")
        await idle(pilot)
        assert fakellm.requests[-1]["model"] == "other-model"
        await wait_for(pilot, lambda: "openai/other-model" in status_bar(app))


async def test_skills_list_and_run(make_app, fakellm, work: Path):
    skill = work / ".agents" / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy the imports.\n---\nSort every import.\n")
    fakellm.script(Turn(text="Tidied."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/skills")
        await wait_for(pilot, lambda: any("/tidy" in n for n in _notices(app)))
        await submit(pilot, "/tidy only src")
        await idle(pilot)
        assert _users(app)[-1] == "/tidy only src"  # shown as typed, not as the skill's prompt
        sent = fakellm.requests[-1]["messages"][-1]["content"]
        assert sent.startswith('Run the skill named "tidy".') and sent.endswith("only src")


async def test_history_is_kept_per_directory(make_app, fakellm, work: Path, tmp_path: Path):
    fakellm.script([Turn(text="ok")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "the first prompt")
        await idle(pilot)
    again = make_app()
    async with again.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)  # the history loads in a thread
        await pilot.press("up")
        assert again.prompt.text == "the first prompt"
        await pilot.press("down")
        assert again.prompt.text == ""
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    third = make_app(cwd=elsewhere)
    async with third.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("up")
        assert third.prompt.text == ""


async def test_multiline_input_and_ctrl_c_twice_quits(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert app.prompt.text == "a\nb\nc"
        await pilot.press("ctrl+c")  # first press clears the prompt
        assert app.prompt.text == "" and app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0


async def test_no_api_key_still_opens_and_says_how(work: Path):
    app = FlueApp(Settings.from_env(cwd=str(work)), sessions=SessionOptions(persist=False))
    async with app.run_test(size=(100, 24)) as pilot:
        await wait_for(pilot, lambda: app.ctl.unavailable)
        [message] = _notices(app)
        # The no-key screen: the keys, a local server, Ollama, /model and the doctor, a sentence a line.
        for named in ("ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "Ollama", "/model", "`flue doctor`"):
            assert named in message
        await wait_for(pilot, lambda: "flue doctor" in screen_text(app))
        # Typing still works, a prompt says again why nothing can be sent, and it stays in the input.
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: len(_notices(app)) == 2)
        assert "your prompt is kept" in _notices(app)[-1] and app.prompt.text == "hello"


async def test_missing_key_for_the_chosen_model_is_named(work: Path):
    settings = Settings.from_env(model="anthropic/claude-sonnet-4-5", cwd=str(work))
    app = FlueApp(settings, sessions=SessionOptions(persist=False))
    async with app.run_test(size=(120, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: any("ANTHROPIC_API_KEY" in n for n in _notices(app)))
        assert app.session is not None


async def test_screenshot_without_a_downloads_folder_goes_to_flue_home(make_app, tmp_path: Path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setenv("FLUE_HOME", str(tmp_path / "fluehome"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.deliver_screenshot()
        shots = tmp_path / "fluehome" / "screenshots"
        await wait_for(pilot, lambda: shots.is_dir() and any(shots.glob("*.svg")), timeout=60)


async def test_typing_on_after_a_completed_directory_with_spaces_stays_inside_its_quote(make_app, fakellm, work: Path):
    """`@"my notes/` + Tab leaves the quote open, so the file typed next completes inside it and is
    attached (before: `@"my notes/"a`, which neither completed nor attached)."""
    (work / "my notes").mkdir()
    (work / "my notes" / "a b.txt").write_text("spaced content\n")
    fakellm.script([Turn(text="Read it.")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.paths.ready)
        await pilot.press(*"explain ", "@", *"my")
        await wait_for(pilot, lambda: app.completion.display and '@"my notes/' in app.completion.inserts)
        while app.completion.choice != '@"my notes/':
            await pilot.press("down")
        await pilot.press("tab")
        assert app.prompt.text == 'explain @"my notes/'
        await pilot.press(*"a b")
        await wait_for(pilot, lambda: app.completion.display and app.completion.inserts)
        assert app.completion.inserts[0] == '@"my notes/a b.txt" '
        await pilot.press("tab", "enter")
        await idle(pilot)
        assert "attached my notes/a b.txt (1 line)" in screen_text(app), screen_text(app)
    sent = fakellm.requests[-1]["messages"][-1]["content"]
    assert "spaced content" in sent and sent.startswith('explain @"my notes/a b.txt"')
