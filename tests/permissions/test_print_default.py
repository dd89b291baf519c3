"""`flue -p`'s default is Claude Code's: what would ask is refused, told to the model with the flags
that allow it, listed in permission_denials and (text format) on stderr; reads and read-only
commands still run. yolo, an allow rule or the user's own config make a run unattended; a
project's file cannot."""

from __future__ import annotations

import json

import pytest

from flue_tui.permissions.policy import no_ask_text
from tests.fakellm import Call, Turn


def _calls() -> list[Call]:
    return [
        Call("read", {"path": "a.txt"}, id="r1"),
        Call("bash", {"command": "ls"}, id="b1"),  # read-only: runs unasked, as in ask mode
        Call("write", {"path": "new.txt", "content": "x"}, id="w1"),
        Call("bash", {"command": "touch made"}, id="b2"),
    ]


def _tool_texts(request: dict) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in request["messages"] if m["role"] == "tool"}


def test_print_mode_refuses_what_would_ask_by_default(fakellm, flue_main, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    fakellm.script([Turn(calls=_calls()), Turn(text="I need your permission.")])
    out = flue_main("-p", "change things", "--model", "openai/fake", "--output-format", "json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["permissionMode"] == "default" and result["result"] == "I need your permission."
    assert result["permission_denials"] == [
        {"tool_name": "write", "tool_use_id": "w1", "tool_input": {"path": "new.txt", "content": "x"}},
        {"tool_name": "bash", "tool_use_id": "b2", "tool_input": {"command": "touch made"}},
    ]
    texts = _tool_texts(fakellm.requests[1])
    assert texts["r1"] == "one\n" and "a.txt" in texts["b1"]
    # The model reads what it needs and how the user grants it, so it can say so.
    assert texts["b2"] == (
        "Permission denied: bash needs the user's approval in ask mode, and print mode (flue -p) cannot "
        'ask for it. Tell the user; to allow it they can run flue again with --allowedTools "bash(touch *)" '
        "or --permission-mode yolo."
    )
    assert texts["w1"] == no_ask_text("write", "ask", ["write", "edit"])
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "made").exists()
    assert out.stderr == ""  # json lists them in permission_denials; no note on stderr


def test_the_text_format_says_what_was_refused_and_how_to_allow_it(fakellm, flue_main, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    fakellm.script([Turn(calls=_calls()), Turn(text="Done what I could.")])
    out = flue_main("-p", "change things", "--model", "openai/fake")
    assert out.code == 0, out.stderr
    assert out.stdout == "Done what I could.\n"
    assert out.stderr.splitlines() == [
        "flue: refused 2 calls that need approval (print mode cannot ask): write new.txt, bash touch made.",
        'flue: to allow them, run again with --allowedTools "write,edit,bash(touch *)" or --permission-mode yolo.',
    ]


def test_a_call_no_rule_can_allow_points_at_yolo_alone(fakellm, flue_main, tmp_path):
    (tmp_path / ".git").mkdir()
    calls = [
        Call("write", {"path": ".git/config", "content": "[core]\n"}, id="w1"),  # always asks
        Call("bash", {"command": 'eval "$STEP"'}, id="b1"),  # unclear: no rule could name it
        *(Call("bash", {"command": f"touch f{i}"}, id=f"t{i}") for i in range(3)),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="ok")])
    out = flue_main("-p", "go", "--model", "openai/fake")
    assert out.code == 0, out.stderr
    assert out.stderr.splitlines() == [
        "flue: refused 5 calls that need approval (print mode cannot ask): write .git/config, "
        'bash eval "$STEP", bash touch f0 and 2 more.',
        "flue: to allow them, run again with --permission-mode yolo.",
    ]
    texts = _tool_texts(fakellm.requests[1])
    assert texts["b1"] == no_ask_text("bash", "ask") and texts["b1"].endswith("with --permission-mode yolo.")
    assert not (tmp_path / ".git" / "config").exists() and not list(tmp_path.glob("f*"))


@pytest.mark.parametrize(
    ("flags", "mode", "written"),
    [
        ((), "default", False),
        (("--permission-mode", "yolo"), "bypassPermissions", True),
        (("--permission-mode", "bypassPermissions"), "bypassPermissions", True),
        (("--dangerously-skip-permissions",), "bypassPermissions", True),
        (("--permission-mode", "acceptEdits"), "acceptEdits", True),
        (("--permission-mode", "plan"), "plan", False),
        (("--allowedTools", "write"), "default", True),
    ],
)
def test_init_and_result_report_the_mode_in_effect(fakellm, flue_main, tmp_path, flags, mode, written):
    fakellm.script([Turn(calls=[Call("write", {"path": "new.txt", "content": "x"})]), Turn(text="ok")])
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "stream-json", "--verbose", *flags)
    assert out.code == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert (lines[0]["subtype"], lines[0]["permissionMode"]) == ("init", mode)
    assert (lines[-1]["type"], lines[-1]["permissionMode"]) == ("result", mode)
    assert (tmp_path / "new.txt").exists() is written
    assert bool(lines[-1]["permission_denials"]) is not written


def test_the_users_own_config_makes_print_mode_unattended(fakellm, flue_main, tmp_path, _isolated_home):
    (_isolated_home / "config.toml").write_text('[permissions]\nmode = "yolo"\n')
    fakellm.script([Turn(calls=[Call("bash", {"command": "touch made"})]), Turn(text="ok")])
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["permissionMode"] == "bypassPermissions" and result["permission_denials"] == []
    assert (tmp_path / "made").exists()


def test_a_cloned_projects_config_cannot_make_print_mode_unattended(fakellm, flue_main, tmp_path):
    (tmp_path / ".flue").mkdir()
    (tmp_path / ".flue" / "config.toml").write_text('[permissions]\nmode = "yolo"\nallow = ["bash"]\n')
    fakellm.script([Turn(calls=[Call("bash", {"command": "touch made"})]), Turn(text="ok")])
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["permissionMode"] == "default" and len(result["permission_denials"]) == 1
    assert not (tmp_path / "made").exists()
