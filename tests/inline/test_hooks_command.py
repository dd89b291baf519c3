"""/hooks in inline mode (a pty): each hook with its event, matcher, command
and origin, and the project's hooks held back while the project is untrusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

FIRST_REPLY_S = 120.0


def _user_hooks(home: Path) -> Path:
    """~/.claude/settings.json as a Claude Code user has it (CLAUDE_CONFIG_DIR points there)."""
    claude = home / ".claude"
    claude.mkdir(parents=True, exist_ok=True)
    table = {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "guard.sh"}]}]}
    (claude / "settings.json").write_text(json.dumps({"hooks": table}))
    return claude


def _project_hooks(work: Path) -> None:
    (work / ".claude").mkdir(exist_ok=True)
    table = {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "make bootstrap"}]}]}
    (work / ".claude" / "settings.json").write_text(json.dumps({"hooks": table}))


def test_hooks_inline_says_the_projects_hooks_wait_for_trust(inline, fakellm, work: Path, tmp_path):
    _project_hooks(work)
    claude = _user_hooks(tmp_path / "home")
    term = inline(env={"CLAUDE_CONFIG_DIR": str(claude)}, cols=80, rows=24)
    term.wait_for("Trust this project?", timeout=FIRST_REPLY_S)
    term.send("n")
    term.wait_for("→ not trusted", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("/hooks\r")
    term.wait_for("Not run because the project is not trusted", timeout=FIRST_REPLY_S)
    term.wait_for("make bootstrap")
    text = term.text()
    assert "PreToolUse [Bash|Write]  guard.sh" in text
    assert "SessionStart [startup]  make bootstrap" in text
    term.send("/quit\r")
    assert term.exit_code() == 0
    assert not os.path.exists(work / "bootstrap")


def test_quitting_inline_ends_the_session_with_prompt_input_exit(inline, fakellm, work: Path, tmp_path):
    import sys

    ended = tmp_path / "ended.txt"
    script = tmp_path / "end.py"
    script.write_text(f"import json, sys\nopen({str(ended)!r}, 'a').write(json.load(sys.stdin)['reason'] + '\\n')\n")
    # A timeout of its own: SessionEnd's default 1.5 s is shorter than a Python start on a loaded machine.
    hooks = {"SessionEnd": [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}", "timeout": 120}]}]}
    term = inline("--settings", json.dumps({"hooks": hooks}), cols=80, rows=24)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt", timeout=FIRST_REPLY_S)
    term.send("/new\r")
    term.wait(lambda t: ended.exists(), what="SessionEnd of /new", timeout=FIRST_REPLY_S)
    term.send("/quit\r")
    assert term.exit_code() == 0
    assert ended.read_text().split() == ["clear", "prompt_input_exit"]


def test_quitting_inline_while_the_session_starts_still_ends_it(inline, fakellm, work: Path, tmp_path):
    """/quit typed while the first session is still starting (its SessionStart hook has run and is
    slow to leave): the session is waited for and gets its SessionEnd."""
    import sys

    log = tmp_path / "events.txt"
    script = tmp_path / "log.py"
    script.write_text(
        "import json, sys, time\nd = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(d['hook_event_name'] + ' ' + (d.get('source') or d.get('reason')) + '\\n')\n"
        "if d['hook_event_name'] == 'SessionStart':\n    time.sleep(1.5)\n"
    )
    command = [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}", "timeout": 120}]}]
    hooks = {"SessionStart": command, "SessionEnd": command}
    term = inline("--settings", json.dumps({"hooks": hooks}), cols=80, rows=24)
    term.wait(lambda t: log.exists(), what="SessionStart", timeout=FIRST_REPLY_S)
    term.send("/quit\r")
    assert term.exit_code() == 0
    assert log.read_text().splitlines() == ["SessionStart startup", "SessionEnd prompt_input_exit"]
