"""A project's `.claude/settings.json` hooks run commands: they wait for trust like `.mcp.json`,
trust covers the file by its SHA-256 (a change asks again), and the model cannot write them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from flue_tui.config import trust
from flue_tui.permissions.scope import HOOKS_WHY, always_asks
from tests.fakellm import Call, Turn


def _project(tmp_path: Path, name: str = "settings.json") -> Path:
    marker = tmp_path / "marker"
    script = tmp_path / "mark.py"
    script.write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n")
    hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    (tmp_path / ".claude").mkdir(exist_ok=True)
    (tmp_path / ".claude" / name).write_text(json.dumps({"hooks": {"PreToolUse": [hook]}}))
    return marker


def _go(fakellm, flue_main, tmp_path, *more: str):
    fakellm.script([Turn(calls=[Call("bash", {"command": "true"}, id="b1")]), Turn(text="done")])
    out = flue_main("-p", "go", "--model", "openai/fake", *more, cwd=tmp_path)
    assert out.code == 0, out.stderr
    return out


def test_an_untrusted_projects_hook_does_not_run_and_runs_once_trusted(fakellm, flue_main, tmp_path):
    marker = _project(tmp_path)
    out = _go(fakellm, flue_main, tmp_path)
    assert not marker.exists()
    assert "Not running the hooks of .claude/settings.json because you have not trusted this project" in out.stderr
    _go(fakellm, flue_main, tmp_path, "--trust-project")
    assert marker.read_text() == "ran\n"
    trust.grant(tmp_path, {".claude/settings.json": None})
    _go(fakellm, flue_main, tmp_path)
    assert marker.read_text() == "ran\nran\n"
    # A pull that changes the file takes the trust away until the user says yes again.
    settings = tmp_path / ".claude" / "settings.json"
    settings.write_text(settings.read_text() + "\n")
    out = _go(fakellm, flue_main, tmp_path)
    assert marker.read_text() == "ran\nran\n"
    assert ".claude/settings.json changed since you trusted this project" in out.stderr


def test_settings_local_json_waits_for_trust_too_and_the_question_names_the_hook(fakellm, flue_main, tmp_path):
    from flue_tui.config.settings import Settings
    from flue_tui.permissions.project import pending

    marker = _project(tmp_path, "settings.local.json")
    _go(fakellm, flue_main, tmp_path)
    assert not marker.exists()
    asked = pending(Settings.from_env(cwd=str(tmp_path), model="openai/fake"))
    assert asked is not None
    assert dict(asked.files).keys() == {".claude/settings.local.json"}
    assert any("PreToolUse hook runs" in h.detail and "mark.py" in h.detail for h in asked.held)


def test_a_broken_project_settings_file_is_a_notice_not_a_stop(fakellm, flue_main, tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_bytes(b'{"hooks": {"PreToolUse": "\xff"}}')
    out = _go(fakellm, flue_main, tmp_path, "--trust-project")
    skipped = f"Skipped {tmp_path}/.claude/settings.json: flue cannot read it (not UTF-8 text, byte 0xff"
    assert out.stderr.count(skipped) == 1, out.stderr  # one notice, though hooks and permissions read it
    assert "Traceback" not in out.stderr


def test_the_model_cannot_write_hooks_unasked(fakellm, flue_main, tmp_path):
    assert always_asks(".claude/settings.json", str(tmp_path)) == HOOKS_WHY
    assert always_asks(".claude/settings.local.json", str(tmp_path)) == HOOKS_WHY
    assert always_asks(".claude/skills/x/SKILL.md", str(tmp_path)) is None
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": ".claude/settings.json", "content": "{}"}, id="w1")]),
            Turn(text="done"),
        ]
    )
    out = flue_main("-p", "go", "--model", "openai/fake", "--permission-mode", "accept-edits", cwd=tmp_path)
    assert out.code == 0, out.stderr
    assert not (tmp_path / ".claude" / "settings.json").exists()


def test_the_users_own_hooks_run_from_claude_settings_and_flue_config(fakellm, flue_main, tmp_path, flue_env):
    import os

    marker = _project(tmp_path)  # the project file stays untrusted; the user's own files need no trust
    command = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
    claude.mkdir(parents=True)
    (claude / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [command]}]}}))
    config = Path(os.environ["FLUE_HOME"]) / "config.toml"
    config.write_text(
        f"[[hooks.PreToolUse]]\nmatcher = 'bash'\nhooks = [{{ command = {json.dumps(command['command'])} }}]\n"
    )
    _go(fakellm, flue_main, tmp_path)
    assert marker.read_text() == "ran\nran\n"


def test_a_project_config_toml_may_not_hold_hooks(fakellm, flue_main, tmp_path):
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text("[[hooks.PreToolUse]]\nhooks = [{ command = 'true' }]\n")
    fakellm.script([Turn(text="never")])
    out = flue_main("-p", "go", "--model", "openai/fake", cwd=tmp_path)
    assert out.code != 0
    assert "hooks is only read from your own" in out.stderr and "Traceback" not in out.stderr
