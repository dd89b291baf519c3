"""The [permissions] table of ~/.config/flue/config.toml and .flue/config.toml, and flag precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.permissions.config import build_policy, load_config


def _user(home: Path, text: str) -> Path:
    path = home / "config.toml"
    path.write_text(text)
    return path


def _project(cwd: Path, text: str) -> Path:
    (cwd / ".flue").mkdir(exist_ok=True)
    path = cwd / ".flue" / "config.toml"
    path.write_text(text)
    return path


def _settings(cwd: Path, **kw) -> Settings:
    return Settings(model="openai/fake", cwd=str(cwd), **kw)


def test_the_default_is_ask_in_every_front_end(tmp_path):
    assert build_policy(_settings(tmp_path)).mode == "ask"  # flue -p: what would ask is refused
    assert build_policy(_settings(tmp_path, interactive=True)).mode == "ask"  # the app


def test_files_merge_and_flags_win(tmp_path, _isolated_home):
    _user(_isolated_home, '[permissions]\nmode = "accept-edits"\nallow = ["bash(git *)"]\ndeny = ["bash(rm *)"]\n')
    _project(tmp_path, '[other]\nx = 1\n[permissions]\nmode = "plan"\nallow = ["bash(make *)"]\n')
    # The project's allow rule waits until the directory is trusted (tests/security/test_project_trust.py).
    held = load_config(str(tmp_path))
    assert (
        held.mode == "plan" and held.allow == ["bash(git *)"] and [h.key for h in held.held] == ["[permissions] allow"]
    )
    conf = load_config(str(tmp_path), trusted=True)
    assert conf.mode == "plan" and conf.allow == ["bash(git *)", "bash(make *)"] and conf.deny == ["bash(rm *)"]
    policy = build_policy(
        _settings(tmp_path, interactive=True, allowed_tools=["read"], disallowed_tools=["write"]), conf
    )
    assert policy.mode == "plan"
    assert [r.text for r in policy.allow] == ["bash(git *)", "bash(make *)", "read"]
    assert [r.text for r in policy.deny] == ["bash(rm *)", "write"]
    assert build_policy(_settings(tmp_path, permission_mode="yolo"), conf).mode == "yolo"


def test_a_project_file_cannot_turn_approvals_off(tmp_path, _isolated_home):
    path = _project(tmp_path, '[permissions]\nmode = "yolo"\n')
    conf = load_config(str(tmp_path), trusted=True)  # ignored, trusted or not (issue 23: never a stop)
    assert conf.mode is None and conf.never == ['[permissions] mode = "yolo"']
    _user(_isolated_home, '[permissions]\nmode = "yolo"\n')
    path.unlink()
    assert load_config(str(tmp_path)).mode == "yolo"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[permissions]\nmode = "sometimes"\n', r"\[permissions\] mode must be one of ask, accept-edits, plan, yolo"),
        ('[permissions]\nallow = "bash"\n', r"\[permissions\] allow must be a list of strings"),
        ("[permissions]\ndeny = [1, 2]\n", r"\[permissions\] deny must be a list of strings"),
        ('[permissions]\nallow = ["bash(git *"]\n', r'\[permissions\] allow: Invalid permission rule "bash\(git \*"'),
        ('[permissions]\nblocklist = ["(unclosed"]\n', r"\[permissions\] blocklist: bad regex '\(unclosed'"),
        ('[permissions]\ndefault_blocklist = "no"\n', r"\[permissions\] default_blocklist must be true or false"),
        ('[permissions]\nalow = ["read"]\n', r"unknown key \[permissions\] alow"),
        ('permissions = "all"\n', r"permissions must be a table"),
        ("[permissions\n", r"invalid TOML"),
    ],
)
def test_bad_tables_name_the_file_and_key(tmp_path, _isolated_home, text, message):
    path = _user(_isolated_home, text)
    with pytest.raises(ConfigError, match=rf"^{path}: .*{message}|^{path}: {message}"):
        load_config(str(tmp_path))


def test_blocklist_settings_are_read(tmp_path, _isolated_home):
    _user(_isolated_home, "[permissions]\nblocklist = ['\\bterraform\\s+destroy\\b']\ndefault_blocklist = false\n")
    conf = load_config(str(tmp_path))
    assert conf.blocklist == [r"\bterraform\s+destroy\b"] and conf.default_blocklist is False
