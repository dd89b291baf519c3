"""An optional file flue cannot read is skipped with one notice, never a stopped start (issue 42):
the user's `~/.claude/settings.json` and `config.toml`, a project's `.claude/settings*.json` and
`.flue/config.toml`. Tests run as root, which chmod 000 does not stop: "cannot read" is a directory
or a FIFO in the file's place, or bytes that are not UTF-8 JSON."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakellm import Turn


def _directory(path: Path) -> str:
    path.mkdir(parents=True)
    return "Is a directory"


def _fifo(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return "a FIFO (named pipe), not a regular file"


def _latin1(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"permissions": {"deny": ["caf\xe9"]}}')
    return "not UTF-8 text, byte 0xe9 at offset 30"


def _not_json(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"permissions": ')
    return "not valid JSON: "


MAKERS: dict[str, Callable[[Path], str]] = {"directory": _directory, "fifo": _fifo}


def _where(name: str, tmp_path: Path) -> Path:
    return {
        "claude user": Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json",
        "flue user": Path(os.environ["FLUE_HOME"]) / "config.toml",
        "claude project": tmp_path / ".claude" / "settings.json",
        "claude local": tmp_path / ".claude" / "settings.local.json",
        "flue project": tmp_path / ".flue" / "config.toml",
    }[name]


@pytest.mark.parametrize("kind", ["directory", "fifo"])
@pytest.mark.parametrize("name", ["claude user", "flue user", "claude project", "claude local", "flue project"])
def test_an_unreadable_config_file_is_skipped_with_one_notice(fakellm, flue_main, tmp_path, name, kind):
    path = _where(name, tmp_path)
    why = MAKERS[kind](path)
    fakellm.script([Turn(text="ok")])
    out = flue_main("-p", "hi", "--model", "openai/fake", "--permission-mode", "ask", cwd=tmp_path)
    assert out.code == 0, out.stderr
    assert out.stdout.strip() == "ok"
    notice = f"Skipped {path}: flue cannot read it ({why})."
    # Settings, permissions, hooks and MCP each read the user's config.toml: still one notice.
    assert [line for line in out.stderr.splitlines() if str(path) in line] == [notice], out.stderr


@pytest.mark.parametrize("make", [_latin1, _not_json])
@pytest.mark.parametrize("name", ["claude user", "claude project"])
def test_a_claude_settings_file_that_is_not_utf8_json_is_skipped(fakellm, flue_main, tmp_path, name, make):
    path = _where(name, tmp_path)
    why = make(path)
    fakellm.script([Turn(text="ok")])
    out = flue_main("-p", "hi", "--model", "openai/fake", "--permission-mode", "ask", cwd=tmp_path)
    assert out.code == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if str(path) in line]
    assert len(lines) == 1 and lines[0].startswith(f"Skipped {path}: flue cannot read it ({why}"), out.stderr
    assert "Traceback" not in out.stderr
