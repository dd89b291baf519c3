"""PreToolUse hooks in Claude Code's contract, through the real `flue -p` against tests/fakellm.
Before hooks were read, every one of these ran the command the hook was written to stop."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fakellm import Call, Turn


def _settings(*groups: dict, event: str = "PreToolUse") -> str:
    return json.dumps({"hooks": {event: list(groups)}})


def _hook(command: str, matcher: str = "Bash", timeout: float | None = None) -> dict:
    entry: dict = {"type": "command", "command": command}
    if timeout is not None:
        entry["timeout"] = timeout
    return {"matcher": matcher, "hooks": [entry]}


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(f"import json, sys\n{body}\n")
    return f"{sys.executable} {path}"


def _tool_texts(fakellm) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}


def _run(fakellm, flue_main, tmp_path, settings: str, calls: list[Call], *more: str):
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    out = flue_main(
        # yolo unless `more` picks a mode (the last --permission-mode wins): the hooks decide, not a question
        "-p", "go", "--model", "openai/fake", "--output-format", "json", "--settings", settings,
        "--permission-mode", "yolo", *more, cwd=tmp_path,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    return out


def test_exit_2_blocks_rm_and_the_model_reads_stderr(fakellm, flue_main, tmp_path):
    (tmp_path / "precious.txt").write_text("keep me\n")
    guard = _script(
        tmp_path,
        "guard.py",
        "data = json.load(sys.stdin)\n"
        "assert data['hook_event_name'] == 'PreToolUse' and data['tool_name'] == 'Bash'\n"
        "if 'rm ' in data['tool_input']['command']:\n"
        "    print('rm is not allowed here', file=sys.stderr); sys.exit(2)",
    )
    out = _run(
        fakellm, flue_main, tmp_path, _settings(_hook(guard)), [Call("bash", {"command": "rm precious.txt"}, id="b1")]
    )
    assert (tmp_path / "precious.txt").read_text() == "keep me\n"
    assert _tool_texts(fakellm) == {"b1": "rm is not allowed here"}
    result = json.loads(out.stdout)
    assert result["permission_denials"] == [
        {"tool_name": "bash", "tool_use_id": "b1", "tool_input": {"command": "rm precious.txt"}}
    ]


def test_the_hook_reads_claude_codes_input_shape(fakellm, flue_main, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    seen = tmp_path / "seen.json"
    spy = _script(tmp_path, "spy.py", f"open({str(seen)!r}, 'w').write(sys.stdin.read())")
    _run(
        fakellm,
        flue_main,
        tmp_path,
        _settings(_hook(spy, matcher="Edit|Write")),
        [Call("edit", {"path": "a.txt", "oldText": "one", "newText": "two"}, id="e1")],
    )
    data = json.loads(seen.read_text())
    assert data["tool_name"] == "Edit" and data["cwd"] == str(tmp_path) and data["session_id"]
    # Claude Code's file_path is absolute: a guard written for it checks it as such.
    assert data["tool_input"] == {"file_path": str(tmp_path / "a.txt"), "old_string": "one", "new_string": "two"}
    assert data["permission_mode"] == "bypassPermissions"  # flue -p's yolo, in Claude Code's words
    assert (tmp_path / "a.txt").read_text() == "two\n"


def test_json_deny_and_legacy_block(fakellm, flue_main, tmp_path):
    deny = _script(
        tmp_path,
        "deny.py",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', "
        "'permissionDecision': 'deny', 'permissionDecisionReason': 'no writes today'}}))",
    )
    block = _script(tmp_path, "block.py", "print(json.dumps({'decision': 'block', 'reason': 'legacy says no'}))")
    _run(
        fakellm,
        flue_main,
        tmp_path,
        _settings(_hook(deny, matcher="Write"), _hook(block, matcher="bash")),
        [Call("write", {"path": "new.txt", "content": "x"}, id="w1"), Call("bash", {"command": "touch made"}, id="b1")],
    )
    assert _tool_texts(fakellm) == {"w1": "no writes today", "b1": "legacy says no"}
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "made").exists()


def test_updated_input_is_translated_back_and_still_checked(fakellm, flue_main, tmp_path):
    rewrite = _script(
        tmp_path,
        "rewrite.py",
        "data = json.load(sys.stdin)\n"
        "cmd = data['tool_input']['command'].replace('one', 'two')\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'allow', "
        "'updatedInput': {'command': cmd}}}))",
    )
    _run(fakellm, flue_main, tmp_path, _settings(_hook(rewrite)), [Call("bash", {"command": "touch one"}, id="b1")])
    assert (tmp_path / "two").exists() and not (tmp_path / "one").exists()
    # An updatedInput a deny rule refuses is refused, as the model's own would be.
    (tmp_path / "two").unlink()
    fakellm.script([Turn(calls=[Call("bash", {"command": "touch one"}, id="b2")]), Turn(text="done")])
    out = flue_main(
        "-p", "go", "--model", "openai/fake", "--settings", _settings(_hook(rewrite)),
        "--disallowed-tools", "Bash(touch two)", cwd=tmp_path,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    assert not (tmp_path / "two").exists() and not (tmp_path / "one").exists()


def test_a_hooks_allow_skips_an_ordinary_question_but_not_a_deny_rule_or_git(fakellm, flue_main, tmp_path):
    allow = _script(
        tmp_path,
        "allow.py",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'allow'}}))",
    )
    (tmp_path / ".git").mkdir()
    calls = [
        Call("bash", {"command": "touch asked"}, id="b1"),
        Call("bash", {"command": "touch denied"}, id="b2"),
        Call("write", {"path": ".git/config", "content": "[core]\n\tfsmonitor = evil\n"}, id="w1"),
    ]
    out = _run(
        fakellm, flue_main, tmp_path, _settings(_hook(allow, matcher="*")), calls,
        "--permission-mode", "ask", "--disallowed-tools", "Bash(touch denied)",
    )  # fmt: skip
    assert (tmp_path / "asked").exists()
    assert not (tmp_path / "denied").exists() and not (tmp_path / ".git" / "config").exists()
    texts = _tool_texts(fakellm)
    assert texts["b2"].startswith("Permission denied: bash is blocked by the rule")
    assert texts["w1"].startswith("Permission denied: write would change")
    assert [d["tool_use_id"] for d in json.loads(out.stdout)["permission_denials"]] == ["b2", "w1"]


def test_a_hanging_hook_hits_its_timeout_in_one_line_and_the_call_goes_on(fakellm, flue_main, tmp_path):
    hang = _script(tmp_path, "hang.py", "import time\ntime.sleep(600)")
    out = _run(
        fakellm,
        flue_main,
        tmp_path,
        _settings(_hook(hang, timeout=1)),
        [Call("bash", {"command": "touch ran"}, id="b1")],
    )
    assert (tmp_path / "ran").exists()
    lines = [line for line in out.stderr.splitlines() if "hook" in line]
    assert len(lines) == 1 and "timed out after 1s" in lines[0], out.stderr


def test_a_crashing_hook_is_one_line(fakellm, flue_main, tmp_path):
    crash = _script(tmp_path, "crash.py", "raise RuntimeError('boom')")
    out = _run(fakellm, flue_main, tmp_path, _settings(_hook(crash)), [Call("bash", {"command": "touch ran"}, id="b1")])
    assert (tmp_path / "ran").exists()
    lines = [line for line in out.stderr.splitlines() if "hook" in line]
    assert len(lines) == 1 and "failed with exit code 1: " in lines[0] and "RuntimeError: boom" in lines[0], out.stderr
    assert "Traceback" not in out.stderr.replace(lines[0], "")


def test_hostile_hook_output_huge_binary_not_json(fakellm, flue_main, tmp_path):
    huge = _script(tmp_path, "huge.py", "sys.stdout.write('{' + 'x' * 5_000_000)")
    binary = _script(
        tmp_path, "binary.py", "sys.stdout.buffer.write(b'\\xff\\xfe\\x00{'); sys.stderr.buffer.write(b'\\xff' * 10)"
    )
    text = _script(tmp_path, "text.py", "print('hello, not json')")
    blocked = _script(
        tmp_path, "blocked.py", "sys.stderr.buffer.write(b'no \\xff\\x1b[31m' + b'y' * 500_000); sys.exit(2)"
    )
    settings = _settings(_hook(f"{huge}; {binary}; {text}", matcher="Bash"), _hook(blocked, matcher="Write"))
    calls = [Call("bash", {"command": "touch ran"}, id="b1"), Call("write", {"path": "w.txt", "content": "x"}, id="w1")]
    out = _run(fakellm, flue_main, tmp_path, settings, calls)
    assert (tmp_path / "ran").exists() and not (tmp_path / "w.txt").exists()
    assert "\x1b" not in out.stderr
    refusal = _tool_texts(fakellm)["w1"]
    assert refusal.startswith("no \ufffd") and len(refusal) <= 64 * 1024


def test_a_bad_hook_shape_is_one_sentence(fakellm, flue_main, tmp_path):
    fakellm.script([Turn(text="never")])
    bad = json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command"}]}]}})
    out = flue_main("-p", "go", "--model", "openai/fake", "--settings", bad, cwd=tmp_path)
    assert out.code != 0
    assert "--settings: hooks.PreToolUse[0].hooks[0].command must be a non-empty shell command" in out.stderr
    assert "Traceback" not in out.stderr


def test_post_tool_use_block_reason_and_additional_context_reach_the_model(fakellm, flue_main, tmp_path):
    seen = tmp_path / "post.json"
    post = _script(
        tmp_path,
        "post.py",
        f"data = json.load(sys.stdin); open({str(seen)!r}, 'w').write(json.dumps(data))\n"
        "print(json.dumps({'decision': 'block', 'reason': 'lint failed: fix it', "
        "'hookSpecificOutput': {'hookEventName': 'PostToolUse', 'additionalContext': 'ran on CI'}}))",
    )
    _run(
        fakellm,
        flue_main,
        tmp_path,
        _settings(_hook(post), event="PostToolUse"),
        [Call("bash", {"command": "echo hi"}, id="b1")],
    )
    assert _tool_texts(fakellm)["b1"] == "hi\n\nlint failed: fix it\nran on CI"
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "PostToolUse" and data["tool_input"] == {"command": "echo hi"}
    assert data["tool_response"] == {
        "output": "hi",
        "is_error": False,
        "stdout": "hi",  # Claude Code's Bash result keys, beside flue's
        "stderr": "",
        "interrupted": False,
        "isImage": False,
    }


def test_a_hook_whose_child_holds_its_pipes_is_stopped_with_the_child(fakellm, flue_main, tmp_path):
    pid_file = tmp_path / "child.pid"
    command = f"sleep 600 & echo $! > {pid_file}; echo started"
    out = _run(
        fakellm,
        flue_main,
        tmp_path,
        _settings(_hook(command, timeout=1)),
        [Call("bash", {"command": "touch ran"}, id="b1")],
    )
    assert (tmp_path / "ran").exists()
    assert "timed out after 1s" in out.stderr
    import time

    status = Path(f"/proc/{int(pid_file.read_text())}/status")

    def gone() -> bool:  # SIGKILL is delivered when the kernel next runs it: wait, generously
        try:
            return "State:\tZ" in status.read_text()
        except OSError:
            return True

    deadline = time.monotonic() + 60
    while not gone() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone()  # killed with the hook's process group
