"""/hooks in the app (Pilot): each hook with its event, matcher, command
and origin, and the project's hooks held back while the project is untrusted."""

from __future__ import annotations

import json
from pathlib import Path

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
