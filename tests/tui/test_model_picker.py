"""`/model` without an id opens the picker (tui/screens/models.py): the local server's and Ollama's
models, filtered as typed; Enter switches through the session handle and the next request goes to
the chosen model; Esc keeps the model; hostile ids are shown escaped and cannot be chosen."""

from __future__ import annotations

import shutil

import pytest

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions
from flue_tui.tui.app import FlueApp
from flue_tui.tui.screens.models import ModelPicker
from tests.fakellm import Turn
from tests.tui.conftest import SNAPSHOT_ROOT, idle, ready, screen_text, submit, wait_for


@pytest.fixture(autouse=True)
def _patient_discovery(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in servers answer from this test process, which a loaded box may starve for longer
    than the picker's 1.5 s per server; tests/model/test_discovery.py pins that deadline itself."""
    from flue_tui.model import discovery

    monkeypatch.setattr(discovery, "TIMEOUT_S", 60.0)


@pytest.fixture
def servers(fakellm, fakeollama, monkeypatch: pytest.MonkeyPatch):
    fakellm.served_models = ["fake", "qwen2.5-coder-32b", "llama-3.1-8b"]
    fakeollama.models = {"llama3.2:latest": 131072}
    monkeypatch.setenv("OLLAMA_HOST", fakeollama.base_url)
    return fakellm


async def _open(pilot) -> ModelPicker:
    app = pilot.app
    await submit(pilot, "/model")
    await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen.listing is not None)
    picker = app.screen
    assert isinstance(picker, ModelPicker)
    await wait_for(pilot, lambda: picker.listing is not None and not picker.listing.pending)  # the whole list
    return picker


async def test_type_a_filter_enter_switches_and_the_next_request_uses_it(make_app, servers):
    servers.script([Turn(text="From the coder.")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        picker = await _open(pilot)
        # The current model is marked.
        await wait_for(pilot, lambda: "● openai/fake" in (t := screen_text(app)) and "ollama_chat/llama3.2:latest" in t)
        await pilot.press(*"coder")
        await wait_for(pilot, lambda: [c.id for c in picker.shown] == ["openai/qwen2.5-coder-32b"])
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.settings.model == "openai/qwen2.5-coder-32b")
        assert not isinstance(app.screen, ModelPicker)
        await submit(pilot, "hello")
        await idle(pilot)
        assert servers.requests[-1]["model"] == "qwen2.5-coder-32b"
        assert app.session is not None and app.session.model.model == "openai/qwen2.5-coder-32b"


async def test_arrows_choose_and_escape_keeps_the_model(make_app, servers):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await _open(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ModelPicker))
        assert app.settings.model == "openai/fake"
        picker = await _open(pilot)
        await pilot.press("down", "down")  # fake → qwen → llama-3.1
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.settings.model == "openai/llama-3.1-8b")
        assert picker.shown[2].id == "openai/llama-3.1-8b"


async def test_a_word_after_model_opens_the_picker_filtered(make_app, servers):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/model llama")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen.listing is not None)
        picker = app.screen
        assert isinstance(picker, ModelPicker)
        await wait_for(
            pilot, lambda: [c.id for c in picker.shown] == ["openai/llama-3.1-8b", "ollama_chat/llama3.2:latest"]
        )
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.settings.model == "ollama_chat/llama3.2:latest")


async def test_hostile_ids_are_shown_escaped_and_a_dead_ollama_is_one_line(make_app, fakellm, monkeypatch):
    fakellm.served_models = ["fake", "evil\x1b]0;pwned\x07", "x\x1b[2J"]
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # nothing listens on the discard port
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        picker = await _open(pilot)
        await wait_for(
            pilot,
            lambda: (
                "openai/evil\\x1b]0;pwned\\x07" in (t := screen_text(app))
                and "openai/x\\x1b[2J" in t
                and "Ollama at http://127.0.0.1:9: unreachable" in t
            ),
        )
        await pilot.press(*"evil", "enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ModelPicker) and picker.listing is not None  # not chosen
        assert app.settings.model == "openai/fake"


def test_snapshot_model_picker(snap_compare, fakellm, fakeollama, monkeypatch: pytest.MonkeyPatch):
    d = SNAPSHOT_ROOT / "model_picker"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    monkeypatch.setenv("OPENAI_BASE_URL", fakellm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OLLAMA_HOST", fakeollama.base_url)
    fakellm.served_models = ["fake", "qwen2.5-coder-32b", "llama-3.1-8b", "evil\x1b[2J"]
    fakeollama.models = {"llama3.2:latest": 131072, "qwen3:8b": 40960}
    app = FlueApp(
        Settings.from_env(model="openai/fake", cwd=str(d), permission_mode="yolo"),
        sessions=SessionOptions(persist=False),
    )

    async def run_before(pilot) -> None:
        await ready(pilot)
        picker = await _open(pilot)
        await pilot.press(*"l")
        # Filtered and drawn before the picture is taken.
        await wait_for(pilot, lambda: len(picker.shown) == 6 and "ollama_chat/qwen3:8b" in screen_text(pilot.app))

    assert snap_compare(app, run_before=run_before, terminal_size=(80, 24))


async def test_a_typed_id_that_is_not_provider_slash_model_is_refused(make_app, servers):
    """The picker's free-typed id (no model matched) goes through the same check as `/model ID`:
    `/mode bogus` (a command typed into the filter) is refused in one sentence, the model stays."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await _open(pilot)
        await pilot.press(*"/mode bogus")
        await wait_for(pilot, lambda: "no models match" in screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Model ids are provider/model" in screen_text(app))
        assert app.settings.model == "openai/fake"
