"""`flue -p "/name args"` reads a slash command as the app does: a skill runs, shown as typed; an
app command or a typo is one sentence on stderr, exit 2, and no request and no session."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakellm import Turn


def _skill(root: Path, name: str, body: str) -> None:
    folder = root / ".agents" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\n{body}\n")


def test_a_skill_runs_from_print_mode_and_is_recorded_as_typed(fakellm, flue_main, tmp_path: Path):
    _skill(tmp_path, "tidy", "Sort every import.")
    fakellm.script(Turn(text="Tidied."))
    out = flue_main("-p", "/tidy only src", "--model", "openai/fake", "--output-format", "json")
    result = json.loads(out.stdout)
    assert (out.code, result["result"]) == (0, "Tidied.")
    sent = fakellm.requests[-1]["messages"][-1]["content"]
    assert sent.startswith('Run the skill named "tidy".') and sent.endswith("only src")
    shown = flue_main("sessions", "show", result["session_id"])
    assert "/tidy only src" in shown.stdout and 'Run the skill named "tidy"' not in shown.stdout


def test_a_typo_is_refused_before_any_request(fakellm, flue_main, tmp_path: Path):
    _skill(tmp_path, "tidy", "Sort every import.")
    out = flue_main("-p", "/tidyy", "--model", "openai/fake")
    assert out.code == 2 and out.stdout == ""
    assert out.stderr == "flue: Unknown command /tidyy — did you mean /tidy?\n"
    far = flue_main("-p", "/zzzzzz now", "--model", "openai/fake", "--output-format", "json")
    assert far.code == 2
    assert "Unknown command /zzzzzz. Skills you can run: /tidy, /commit," in far.stderr
    assert json.loads(far.stdout)["is_error"] is True
    near_command = flue_main("-p", "/moddel", "--model", "openai/fake")  # no app command is suggested here
    assert near_command.stderr.startswith("flue: Unknown command /moddel. Skills you can run:")
    assert fakellm.requests == []
    assert "No sessions" in flue_main("sessions").stdout


def test_app_commands_are_refused_and_paths_stay_prompts(fakellm, flue_main):
    out = flue_main("-p", "/model openai/other", "--model", "openai/fake")
    assert out.code == 2
    assert out.stderr == "flue: /model is a command of the interactive app; it is not available with -p.\n"
    assert fakellm.requests == []
    fakellm.script([Turn(text="one"), Turn(text="two")])
    assert flue_main("-p", "/usr/bin/env is what?", "--model", "openai/fake").stdout == "one\n"
    assert flue_main("-p", "//etc is a folder", "--model", "openai/fake").stdout == "two\n"
    assert [r["messages"][-1]["content"] for r in fakellm.requests] == ["/usr/bin/env is what?", "//etc is a folder"]


def test_a_hostile_name_is_echoed_harmlessly(fakellm, flue_main):
    out = flue_main("-p", "/\x1b]52;c;aGk=\x07" + "a" * 80, "--model", "openai/fake")
    assert out.code == 2 and "\x1b" not in out.stderr and "\x07" not in out.stderr
    assert len(out.stderr.splitlines()) == 1 and fakellm.requests == []


def test_an_attached_file_is_recorded_as_typed_with_a_note(fakellm, flue_main, tmp_path: Path):
    (tmp_path / "calc.py").write_text("SECRET_LOOKING_BODY = 1\n")
    fakellm.script(Turn(text="Read it."))
    out = flue_main("-p", "explain @calc.py", "--model", "openai/fake", "--output-format", "json")
    assert "SECRET_LOOKING_BODY" in fakellm.requests[-1]["messages"][-1]["content"]  # the model gets the file
    shown = flue_main("sessions", "show", json.loads(out.stdout)["session_id"]).stdout
    assert "explain @calc.py" in shown and "SECRET_LOOKING_BODY" not in shown  # the transcript, what was typed


def test_plain_mode_reads_slash_commands_the_same_way(fakellm, flue_main, tmp_path: Path):
    _skill(tmp_path, "tidy", "Sort every import.")
    fakellm.script(Turn(text="Tidied."))
    out = flue_main("--plain", "--model", "openai/fake", stdin="/tidyy\n/model\n/tidy src\n")
    assert out.code == 0
    assert "flue: Unknown command /tidyy — did you mean /tidy?" in out.stderr
    assert "flue: /model is a command of the interactive app; it is not available in --plain mode." in out.stderr
    assert len(fakellm.requests) == 1 and fakellm.requests[0]["messages"][-1]["content"].endswith("src")
