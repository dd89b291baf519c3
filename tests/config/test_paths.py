"""Where flue keeps its files (config/paths.py): config in XDG_CONFIG_HOME, data in XDG_DATA_HOME,
FLUE_HOME moving all of it, and an old layout (config in the data directory) read, never moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.config import paths
from flue_tui.config.settings import Settings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine whose HOME is tmp_path, with no FLUE_HOME and no XDG variables."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("FLUE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(var, raising=False)
    return home


def _model_from_user_file(cwd: Path) -> str | None:
    return Settings.from_env(cwd=str(cwd)).model


def test_a_fresh_machine_uses_the_xdg_defaults(home: Path, tmp_path: Path):
    assert paths.config_file() == home / ".config" / "flue" / "config.toml"
    assert paths.skills_dir() == home / ".config" / "flue" / "skills"
    assert paths.db_file() == home / ".local" / "share" / "flue" / "sessions.db"
    assert paths.history_dir() == home / ".local" / "share" / "flue" / "history"
    assert paths.trust_file() == home / ".local" / "share" / "flue" / "trusted-projects.json"
    assert paths.checkpoints_home() == home / ".local" / "share" / "flue"
    assert paths.legacy_notice() is None
    (home / ".config" / "flue").mkdir(parents=True)
    (home / ".config" / "flue" / "config.toml").write_text('model = "openai/from-config-home"\n')
    assert _model_from_user_file(tmp_path) == "openai/from-config-home"


def test_xdg_variables_move_config_and_data_apart(home: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert paths.config_file() == tmp_path / "cfg" / "flue" / "config.toml"
    assert paths.db_file() == tmp_path / "data" / "flue" / "sessions.db"


def test_relative_xdg_variables_are_ignored_as_the_spec_says(home: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/cfg")
    monkeypatch.setenv("XDG_DATA_HOME", "")
    assert paths.config_file() == home / ".config" / "flue" / "config.toml"
    assert paths.db_file() == home / ".local" / "share" / "flue" / "sessions.db"


def test_the_old_layout_keeps_being_read_and_is_never_moved(home: Path, tmp_path: Path):
    old = home / ".local" / "share" / "flue"
    (old / "skills" / "mine").mkdir(parents=True)
    (old / "config.toml").write_text('model = "openai/from-old-layout"\n')
    assert paths.config_file() == old / "config.toml"
    assert paths.skills_dir() == old / "skills"
    assert _model_from_user_file(tmp_path) == "openai/from-old-layout"
    assert paths.legacy_notice() is None  # nothing is ignored, so nothing to say
    # Nothing was moved or created: an older flue beside this one still finds its config.
    assert (old / "config.toml").read_text() == 'model = "openai/from-old-layout"\n'
    assert not (home / ".config").exists()


def test_when_both_exist_the_new_one_wins_and_the_old_one_is_named(home: Path, tmp_path: Path):
    old = home / ".local" / "share" / "flue"
    new = home / ".config" / "flue"
    old.mkdir(parents=True)
    new.mkdir(parents=True)
    (old / "config.toml").write_text('model = "openai/old"\n')
    (new / "config.toml").write_text('model = "openai/new"\n')
    assert _model_from_user_file(tmp_path) == "openai/new"
    notice = paths.legacy_notice()
    assert notice == (
        f"{old / 'config.toml'} is ignored now that {new / 'config.toml'} exists: "
        "move what you still need into it and delete the old one."
    )
    assert (old / "config.toml").exists()  # still never touched


def test_flue_home_moves_everything_into_one_directory(home: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("FLUE_HOME", str(tmp_path / "one"))
    one = tmp_path / "one"
    assert paths.config_file() == one / "config.toml"
    assert paths.skills_dir() == one / "skills"
    assert paths.db_file() == one / "sessions.db"
    assert paths.history_dir() == one / "history"
    assert paths.trust_file() == one / "trusted-projects.json"
    assert paths.checkpoints_home() == one
    assert paths.legacy_notice() is None
    assert paths.describe() == f"FLUE_HOME is {one} (config and data)"


def test_an_unusable_data_directory_is_one_sentence_and_no_data_is_written(home: Path, tmp_path: Path, monkeypatch):
    # A file where the directory should be: unwritable even for root, which this suite may run as.
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("keep me\n")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    from flue_tui.store.sessions import SessionStore

    store = SessionStore.open(None)
    try:
        assert store.problem is not None and store.problem.count(". ") == 0
        assert str(blocker / "flue" / "sessions.db") in store.problem
        assert "Traceback" not in store.problem
    finally:
        store.close()
    assert blocker.read_text() == "keep me\n"
    from flue_tui.config.trust import TrustError, grant

    (tmp_path / "proj").mkdir()
    with pytest.raises(TrustError) as err:
        grant(tmp_path / "proj", {".flue/config.toml": None})
    assert str(err.value) == f"Cannot save trust to {blocker / 'flue' / 'trusted-projects.json'}: Not a directory"
    assert blocker.read_text() == "keep me\n"


def test_every_front_end_is_told_when_an_old_config_is_ignored(home: Path, tmp_path: Path, monkeypatch):
    from flue_tui.runtime.start import SessionOptions, start_session

    old, new = home / ".local" / "share" / "flue", home / ".config" / "flue"
    old.mkdir(parents=True)
    new.mkdir(parents=True)
    (old / "config.toml").write_text('[permissions]\ndeny = ["bash(rm *)"]\n')
    (new / "config.toml").write_text('model = "openai/new"\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    started = start_session(Settings.from_env(cwd=str(tmp_path)), SessionOptions(persist=False))
    assert started.notices == [paths.legacy_notice()]
