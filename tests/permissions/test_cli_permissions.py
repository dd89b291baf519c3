"""The real `flue -p` CLI: print mode never waits for an answer, refusals are listed as
permission_denials, and --sandbox workspace refuses escapes and dangerous commands."""

from __future__ import annotations

import json

from flue_tui.permissions.policy import no_ask_text
from flue_tui.sandbox.workspace import NO_BWRAP_NOTICE, detect
from tests.fakellm import Call, Turn


def test_print_mode_never_blocks_and_lists_every_refusal(fakellm, flue_main, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    calls = [
        Call("write", {"path": "new.txt", "content": "x"}, id="w1"),
        Call("edit", {"path": "a.txt", "oldText": "one", "newText": "two"}, id="e1"),
        Call("bash", {"command": "touch made"}, id="b1"),
        Call("read", {"path": "a.txt"}, id="r1"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="Nothing was allowed.")])
    out = flue_main(
        "-p",
        "change things",
        "--model",
        "openai/fake",
        "--permission-mode",
        "ask",
        "--output-format",
        "json",
    )
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["result"] == "Nothing was allowed." and result["is_error"] is False
    assert result["permission_denials"] == [
        {"tool_name": "write", "tool_use_id": "w1", "tool_input": {"path": "new.txt", "content": "x"}},
        {"tool_name": "edit", "tool_use_id": "e1", "tool_input": {"path": "a.txt", "oldText": "one", "newText": "two"}},
        {"tool_name": "bash", "tool_use_id": "b1", "tool_input": {"command": "touch made"}},
    ]
    tool_messages = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert tool_messages == {
        "w1": no_ask_text("write", "ask", ["write", "edit"]),
        "e1": no_ask_text("edit", "ask", ["write", "edit"]),
        "b1": no_ask_text("bash", "ask", ["bash(touch *)"]),
        "r1": "one\n",
    }
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "made").exists()


def test_workspace_sandbox_and_rules_through_the_cli(fakellm, flue_main, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("secret\n")
    calls = [
        Call("read", {"path": "../secret.txt"}, id="c1"),
        Call("bash", {"command": "reboot"}, id="c2"),
        Call("bash", {"command": "git push origin main"}, id="c3"),
        Call("bash", {"command": "echo reboot > note.txt && cat note.txt"}, id="c4"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main(
        "-p",
        "go",
        "--model",
        "openai/fake",
        "--sandbox",
        "workspace",
        "--permission-mode",
        "yolo",  # the sandbox and deny rules hold even where nothing asks
        "--output-format",
        "events",
        "--disallowed-tools",
        "bash(git push *)",
        cwd=ws,
    )
    assert out.code == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[0]["type"] == "system" and lines[0]["permissionMode"] == "yolo"
    result = lines[-1]
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["c1", "c2", "c3"]
    texts = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert texts["c1"] == "path escapes workspace boundary: ../secret.txt"
    assert texts["c2"] == (
        'Command blocked by workspace sandbox rule "system-control": system control command detected. Nothing was run.'
    )
    assert texts["c3"] == 'Permission denied: bash is blocked by the rule "bash(git push *)".'
    assert texts["c4"] == "reboot"
    bwrap, why = detect()
    assert out.stderr == ("" if bwrap is not None else NO_BWRAP_NOTICE.format(reason=why) + "\n")


def test_bad_rules_and_tables_stop_before_the_run(flue_main, tmp_path, _isolated_home):
    bad_flag = flue_main("-p", "go", "--model", "openai/fake", "--allowed-tools", "bash(git *")
    assert bad_flag.code == 2 and 'Invalid permission rule "bash(git *"' in bad_flag.stderr
    config = _isolated_home / "config.toml"
    config.write_text('[permissions]\nallow = "bash"\n')
    bad_table = flue_main("-p", "go", "--model", "openai/fake", env=None)
    assert bad_table.code == 2  # a configuration error, like a bad flag
    assert bad_table.stderr == (
        f'flue: {config}: [permissions] allow must be a list of strings, e.g. allow = ["bash(git *)"]\n'
    )
