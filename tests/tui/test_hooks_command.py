"""/hooks in the app (Pilot): each hook with its event, matcher, command and origin; and /new and
quitting as the SessionEnd and SessionStart hooks see them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flue_tui.ui.transcript import NoticeEntry
from tests.fakellm import Turn
from tests.tui.conftest import ready, submit, wait_for

FIRST_REPLY_S = 120.0


def _user_hooks(home: Path) -> Path:
    """~/.claude/settings.json as a Claude Code user has it (CLAUDE_CONFIG_DIR points there)."""
    claude = home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    table = {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "guard.sh"}]}]}
    (claude / "settings.json").write_text(json.dumps({"hooks": table}))
    return claude


async def test_hooks_lists_each_hook_with_its_origin_in_the_app(make_app, fakellm, work: Path, tmp_path, monkeypatch):
    claude = _user_hooks(tmp_path / "home")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    flag = {"Stop": [{"hooks": [{"type": "command", "command": "say done\x1b[2J", "timeout": 5}]}]}
    fakellm.script([Turn(text="never asked")])
    app = make_app(settings_hooks=flag)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "/hooks")
        text = await wait_for(
            pilot,
            lambda: next(
                (e.text for e in app.transcript.entries if isinstance(e, NoticeEntry) and "Hooks" in e.text), None
            ),
        )
    assert "  PreToolUse [Bash|Write]  guard.sh" in text
    assert f"      from {claude / 'settings.json'} · timeout 60s" in text
    assert "  Stop [*]  say done" in text and "from --settings · timeout 5s" in text
    assert "\x1b" not in text  # a command's escape is shown, never obeyed
    assert fakellm.requests == []


@pytest.mark.parametrize("slow_start", [False, True], ids=["started", "still-starting"])
async def test_new_and_quit_end_and_start_sessions_with_claude_codes_reasons(
    make_app, fakellm, work: Path, tmp_path, slow_start: bool
):
    """/new, then quit; still-starting: quit while the new session's SessionStart hook has run and is
    slow to leave, and that session gets its SessionEnd too, not only the one before it."""
    import sys

    log = tmp_path / "events.jsonl"
    script = tmp_path / "log.py"
    script.write_text(
        "import json, sys, time\nd = json.load(sys.stdin)\nwhat = d.get('source') or d.get('reason')\n"
        f"open({str(log)!r}, 'a').write(json.dumps([d['hook_event_name'], what]) + '\\n')\n"
        f"if {slow_start} and what == 'clear' and d['hook_event_name'] == 'SessionStart':\n    time.sleep(1.5)\n"
    )
    # A timeout of its own: SessionEnd's default 1.5 s is shorter than a Python start on a loaded machine.
    command = [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}", "timeout": 120}]}]
    fakellm.script([Turn(text="never asked")])
    app = make_app(settings_hooks={"SessionStart": command, "SessionEnd": command})

    def seen() -> list[list[str]]:
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: seen() == [["SessionStart", "startup"]] or None)
        await submit(pilot, "/new")
        await wait_for(pilot, lambda: len(seen()) == 3 or None)  # still-starting: its hook still runs
    assert seen()[1:] == [["SessionEnd", "clear"], ["SessionStart", "clear"], ["SessionEnd", "prompt_input_exit"]]
