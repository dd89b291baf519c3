"""Configuration files, their errors, and precedence: defaults < user < project < FLUE_* < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings


@pytest.fixture
def files(_isolated_home: Path, tmp_path: Path):
    project = tmp_path / "proj"
    (project / ".flue").mkdir(parents=True)

    def write(user: str | None = None, proj: str | None = None) -> Path:
        if user is not None:
            (_isolated_home / "config.toml").write_text(user)
        if proj is not None:
            (project / ".flue" / "config.toml").write_text(proj)
        return project

    return write


def error_of(cwd: Path, **flags) -> str:
    with pytest.raises(ConfigError) as err:
        Settings.from_env(cwd=str(cwd), **flags)
    return str(err.value)


def test_precedence_each_layer_beats_the_one_below(files, monkeypatch, _isolated_home):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    cwd = files()
    assert Settings.from_env(cwd=str(cwd)).model == "anthropic/claude-sonnet-4-5"  # default from the key
    files(user='model = "user/m"\nauto_compact = false\n[env]\nA = "user"\nB = "user"\n')
    s = Settings.from_env(cwd=str(cwd))
    assert (s.model, s.auto_compact, s.extra_env) == ("user/m", False, {"A": "user", "B": "user"})
    assert s.sources["model"] == str(_isolated_home / "config.toml")
    files(proj='model = "project/m"\n[env]\nB = "project"\n[ui]\ntheme = "nord"\n')
    s = Settings.from_env(cwd=str(cwd))  # a project's [env] waits until the project is trusted
    assert s.extra_env == {"A": "user", "B": "user"} and [h.key for h in s.project_held] == ["[env] B"]
    s = Settings.from_env(cwd=str(cwd), trust_project=True)
    assert (s.model, s.auto_compact, s.extra_env, s.theme) == (
        "project/m",
        False,
        {"A": "user", "B": "project"},
        "nord",
    )
    monkeypatch.setenv("FLUE_MODEL", "env/m")
    monkeypatch.setenv("FLUE_AUTO_COMPACT", "1")
    s = Settings.from_env(cwd=str(cwd))
    assert (s.model, s.auto_compact, s.sources["model"]) == ("env/m", True, "environment")
    s = Settings.from_env(cwd=str(cwd), model="flag/m")
    assert (s.model, s.sources["model"]) == ("flag/m", "flag")


def test_unknown_key_names_file_and_known_keys(files):
    cwd = files(proj='modle = "x"\n')
    assert error_of(cwd) == (
        f"{cwd}/.flue/config.toml: unknown key 'modle' (known keys: model, compaction_model, "
        "auto_compact, context_window, max_turns, idle_timeout, max_reply_chars, sandbox, "
        "allow_network, effort, max_output_tokens, prompt_cache, transport, notify, input_price, output_price, env, permissions, ui, "
        "mcp_servers, hooks)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "model = 3",
            'model must be a string such as "anthropic/claude-sonnet-4-5", or a table ([model]), not a number (3)',
        ),
        ('auto_compact = "yes"', "auto_compact must be true or false, not a string ('yes')"),
        ("context_window = 0", "context_window must be a whole number of tokens, more than 0, not a number (0)"),
        ("max_turns = true", "max_turns must be a whole number, more than 0, not a boolean (True)"),
        ('sandbox = "docker"', 'sandbox must be "local" or "workspace", not a string (\'docker\')'),
        (
            'env = "A=1"',
            "env must be a table of strings, e.g. [env] followed by NAME = \"value\", not a string ('A=1')",
        ),
        ("[env]\nA = 1", "env.A must be a string, not a number (1)"),
        ('[ui]\nmode = "gui"', 'ui.mode must be "tui", "inline" or "plain", not a string (\'gui\')'),
        ('[ui]\ncolour = "red"', "unknown key 'ui.colour' (known keys: ui.mode, ui.theme)"),
        ("idle_timeout = 0", "idle_timeout must be a number of seconds, more than 0, not a number (0.0)"),
        ("idle_timeout = true", "idle_timeout must be a number of seconds, more than 0, not a boolean (True)"),
        (
            "max_reply_chars = 1.5",
            "max_reply_chars must be a whole number of characters, more than 0, not a number (1.5)",
        ),
    ],
)
def test_wrong_types_name_file_key_and_expectation(files, _isolated_home, text, message):
    cwd = files(user=text + "\n")
    assert error_of(cwd) == f"{_isolated_home / 'config.toml'}: {message}"


def test_invalid_toml(files, _isolated_home):
    cwd = files(user="model = \n")
    assert error_of(cwd).startswith(f"{_isolated_home / 'config.toml'}: invalid TOML: ")


def test_project_file_cannot_loosen_containment(files, _isolated_home):
    cwd = files(proj='sandbox = "local"\n')
    assert error_of(cwd) == (
        f'{cwd}/.flue/config.toml: sandbox = "local" is only accepted from your own '
        f"{_isolated_home / 'config.toml'} or the --sandbox flag"
    )
    cwd = files(proj="allow_network = true\n")
    assert "allow_network = true is only accepted" in error_of(cwd)
    cwd = files(proj='sandbox = "workspace"\n')
    assert Settings.from_env(cwd=str(cwd)).sandbox == "workspace"


def test_bad_environment_values(files, monkeypatch):
    cwd = files()
    monkeypatch.setenv("FLUE_CONTEXT_WINDOW", "lots")
    assert error_of(cwd) == "FLUE_CONTEXT_WINDOW must be a whole number of tokens, more than 0, not 'lots'"
    monkeypatch.delenv("FLUE_CONTEXT_WINDOW")
    monkeypatch.setenv("FLUE_AUTO_COMPACT", "maybe")
    assert error_of(cwd) == "FLUE_AUTO_COMPACT must be true or false (or 1/0), not 'maybe'"


def test_config_error_is_one_line_through_the_cli(files, flue_main):
    cwd = files(proj="model = 3\n")
    out = flue_main("-p", "hi", cwd=cwd)
    assert out.code == 2 and out.stderr.startswith(f"flue: {cwd}/.flue/config.toml: model must be a string")
    assert "Traceback" not in out.stderr


def test_provider_fault_bounds_from_file_and_environment(files, monkeypatch):
    cwd = files(user="idle_timeout = 30\nmax_reply_chars = 5000\n")
    s = Settings.from_env(cwd=str(cwd))
    assert (s.idle_timeout, s.max_reply_chars) == (30, 5000)
    monkeypatch.setenv("FLUE_IDLE_TIMEOUT", "2.5")
    assert Settings.from_env(cwd=str(cwd)).idle_timeout == 2.5
    monkeypatch.setenv("FLUE_IDLE_TIMEOUT", "soon")
    assert error_of(cwd) == "FLUE_IDLE_TIMEOUT must be a number of seconds, more than 0, not 'soon'"


def test_transport_forces_litellm_from_the_model_table_the_top_level_or_the_environment(files, monkeypatch):
    from flue_tui.model.route import route

    cwd = files(user='[model]\nname = "openai/gpt-4.1"\ntransport = "litellm"\n')
    settings = Settings.from_env(cwd=str(cwd))
    assert settings.transport == "litellm" and route(settings.model or "", None, settings.transport).wire is None
    files(user='model = "openai/gpt-4.1"\ntransport = "auto"\n')
    assert route("openai/gpt-4.1", None, Settings.from_env(cwd=str(cwd)).transport).wire == "openai"
    monkeypatch.setenv("FLUE_TRANSPORT", "litellm")
    assert Settings.from_env(cwd=str(cwd)).transport == "litellm"
    files(user='transport = "fast"\n')
    monkeypatch.delenv("FLUE_TRANSPORT")
    assert "transport must be" in error_of(cwd)
