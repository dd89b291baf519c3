"""`flue -p` end to end: the real CLI, real litellm, the scripted server. In this process
(`flue_main`) except where the process itself is the point: signals, stdin left open, a fresh
interpreter's imports, and one run whose whole stderr (litellm's own output included) is pinned."""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import subprocess
import sys

import pytest

from tests.fakellm import Call, Turn

RESULT_FIELDS = {
    "type",
    "subtype",
    "is_error",
    "result",
    "session_id",
    "num_turns",
    "duration_ms",
    "duration_api_ms",
    "total_cost_usd",
    "usage",
    "model",
    "permission_denials",
    "stop_reason",
    "modelUsage",
    "terminal_reason",
    "uuid",
    "checkpoint",
    "permissionMode",
    "api_error_status",
}
USAGE_FIELDS = {
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "server_tool_use",
    "service_tier",
}


def test_multi_turn_tool_run_prints_the_final_answer(fakellm, flue_main, tmp_path):
    (tmp_path / "README.md").write_text("# Demo\nA tiny project.\n")
    fakellm.script(
        [
            Turn(text="Let me look.", calls=[Call("read", {"path": "README.md"})]),
            Turn(calls=[Call("bash", {"command": "echo $((6*7))"})]),
            Turn(text="It is a tiny project. The answer is 42."),
        ]
    )
    out = flue_main("-p", "--permission-mode", "yolo", "summarise README.md", "--model", "openai/fake")
    assert out.code == 0, out.stderr
    assert out.stdout == "It is a tiny project. The answer is 42.\n"
    assert out.stderr == ""
    second = fakellm.requests[1]["messages"]
    assert second[-1] == {
        "role": "tool",
        "tool_call_id": second[-2]["tool_calls"][0]["id"],
        "content": "# Demo\nA tiny project.\n",
    }
    assert fakellm.requests[2]["messages"][-1]["content"] == "42"


def test_json_result_object_has_exact_fields(fakellm, flue_main):
    fakellm.script(
        [Turn(calls=[Call("bash", {"command": "true"})], usage=(100, 10, 30)), Turn(text="done", usage=(120, 5))]
    )
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "json")
    assert out.code == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    obj = json.loads(lines[0])
    assert set(obj) == RESULT_FIELDS and set(obj["usage"]) == USAGE_FIELDS
    assert obj["type"] == "result" and obj["subtype"] == "success" and obj["is_error"] is False
    assert obj["stop_reason"] == "end_turn"
    assert obj["result"] == "done" and obj["num_turns"] == 2 and obj["model"] == "openai/fake"
    assert obj["usage"] == {
        "input_tokens": 190,
        "output_tokens": 15,
        "cache_read_input_tokens": 30,
        "cache_creation_input_tokens": 0,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
    }
    assert obj["total_cost_usd"] is None and obj["session_id"]  # openai/fake has no price: unknown, not $0
    assert obj["duration_ms"] >= obj["duration_api_ms"] >= 0


def test_events_init_events_and_result_last(fakellm, flue_main):
    fakellm.script([Turn(text="Looking", calls=[Call("bash", {"command": "echo hi"})]), Turn(text="bye")])
    out = flue_main("-p", "--permission-mode", "yolo", "go", "--model", "openai/fake", "--output-format", "events")
    assert out.code == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    init, result = lines[0], lines[-1]
    assert init["type"] == "system" and init["subtype"] == "init" and init["schema_version"] == 1
    assert init["tools"] == [
        "read", "write", "edit", "bash", "grep", "glob", "task", "activate_skill", "todo_write",
        "bash_background", "bash_output", "bash_kill",
    ]  # fmt: skip
    assert init["model"] == "openai/fake" and init["session_id"] == result["session_id"]
    assert set(result) == RESULT_FIELDS and result["result"] == "bye"
    types = [line["type"] for line in lines[1:-1]]
    assert types[0] == "operation_start" and types[-2:] == ["operation", "idle"]
    assert "text_delta" not in types and "tool_output" not in types
    tool = next(line for line in lines if line["type"] == "tool")
    assert tool["toolName"] == "bash" and tool["isError"] is False
    assert tool["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert all(line["session"] == init["session_id"] for line in lines[1:-1])


def test_events_partial_messages(fakellm, flue_main):
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo live"})]), Turn(text="streamed answer")])
    out = flue_main(
        "-p",
        "--permission-mode",
        "yolo",
        "go",
        "--model",
        "openai/fake",
        "--output-format",
        "events",
        "--include-partial-messages",
    )
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    deltas = [line["text"] for line in lines if line["type"] == "text_delta"]
    assert len(deltas) > 1 and "".join(deltas) == "streamed answer"
    assert any(line["type"] == "tool_output" and "live" in line["chunk"] for line in lines)


def test_prompt_from_stdin(fakellm, flue_main):
    fakellm.script([Turn(text="from stdin")])
    out = flue_main("-p", "--model", "openai/fake", stdin="why does this fail?\n")
    assert out.code == 0 and out.stdout == "from stdin\n"
    assert fakellm.requests[0]["messages"][-1] == {"role": "user", "content": "why does this fail?\n"}


def test_prompt_argument_never_reads_stdin_left_open(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(text="finished")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "hi", "--model", "openai/fake"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=flue_env,
        cwd=tmp_path,
        text=True,
    )
    try:
        proc.wait(timeout=180)  # stdin stays open the whole time; generous: a loaded box imports litellm slowly
        assert proc.returncode == 0
        assert proc.stdout.read() == "finished\n"
    finally:
        proc.kill()
        proc.stdin.close()


def test_rate_limit_retried_then_succeeds(fakellm, flue_main):
    fakellm.script([Turn.rate_limit(), Turn(text="ok after retry")])
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "json", "--verbose")
    obj = json.loads(out.stdout)
    assert out.code == 0 and obj["is_error"] is False and obj["result"] == "ok after retry"
    assert len(fakellm.requests) == 2


def test_server_error_exhausts_retries_exit_1(fakellm, flue_main):
    fakellm.script([Turn(status=500, error_message="upstream exploded", repeat=4)])
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", "json")
    obj = json.loads(out.stdout)
    # The provider's own error answer, as Claude Code reports one: a "success" with is_error and its status.
    assert out.code == 1 and obj["is_error"] is True and obj["subtype"] == "success"
    assert obj["api_error_status"] == 500 and obj["terminal_reason"] == "api_error"
    assert obj["result"].startswith("prompt failed: ") and "upstream exploded" in obj["result"]
    assert len(fakellm.requests) == 4
    assert "Traceback" not in out.stderr


def test_max_turns_ends_with_error_result(fakellm, flue_main):
    fakellm.script([Turn(calls=[Call("bash", {"command": "true"})], repeat=3)])
    out = flue_main("-p", "loop", "--model", "openai/fake", "--max-turns", "2", "--output-format", "json")
    obj = json.loads(out.stdout)
    assert out.code == 1 and obj["subtype"] == "error_max_turns" and obj["is_error"] is True
    # Claude Code counts the round the limit stopped (2.1.332 says 2 for --max-turns 1 after one tool call).
    assert obj["num_turns"] == 3 and len(fakellm.requests) == 2


def test_bad_flags_exit_2(flue_main):
    assert flue_main("-p", "x", "--max-turns", "zero").code == 2
    assert flue_main("-p", "x", "--output-format", "yaml").code == 2
    out = flue_main("-p")
    assert out.code == 2 and "needs a prompt" in out.stderr


def test_sigterm_mid_run_prints_result_and_exits_143(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("bash", {"command": "sleep 300"})]), Turn(text="never")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "flue_tui", "-p", "go", "--model", "openai/fake", "--output-format", "events"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=flue_env,
        cwd=tmp_path,
        text=True,
    )
    try:
        for line in proc.stdout:
            if json.loads(line)["type"] == "tool_start":
                break
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=120)  # generous: the run ends on the signal, not on a clock
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    result = json.loads(rest.splitlines()[-1])
    assert result["type"] == "result" and result["is_error"] is True and result["result"] == "Aborted by SIGTERM."


def test_missing_key_unknown_model_and_unreachable_endpoint_are_one_sentence(fakellm, run_flue, flue_main, flue_env):
    # Subprocesses where the whole stderr is pinned (litellm's own logging included); the unknown
    # model only needs its sentence, in process.
    env = {k: v for k, v in flue_env.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    out = run_flue("-p", "hi", "--model", "anthropic/claude-sonnet-4-5", env=env)
    assert out.code == 1
    assert out.stderr.startswith(
        "flue: No API key for anthropic/claude-sonnet-4-5: set ANTHROPIC_API_KEY "
        "(e.g. `export ANTHROPIC_API_KEY=...`) or choose another model with --model"
    )
    # One paragraph that also names the ways without a hosted key, and the doctor.
    for named in ("OPENAI_BASE_URL", "Ollama", "OLLAMA_HOST", "`flue doctor`"):
        assert named in out.stderr
    assert out.stderr.count("\n") == 1
    out = flue_main("-p", "hi", "--model", "nonsense-model", env=env)
    assert out.code == 1 and "Unknown model 'nonsense-model'" in out.stderr and "Traceback" not in out.stderr
    dead = dict(flue_env, OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    out = run_flue("-p", "hi", "--model", "openai/fake", env=dead)
    assert out.code == 1 and out.stderr.startswith("flue: Could not reach http://127.0.0.1:9/v1")
    assert out.stderr.count("\n") == 1


def test_no_model_configured(flue_main, flue_env):
    env = {k: v for k, v in flue_env.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    out = flue_main("-p", "hi", env=env)
    assert out.code == 2 and out.stderr.startswith("flue: No model configured:")


# What `flue --help` needs beyond flue_tui.cli: the package itself and its entry point. The flags'
# argparse definitions are cli/flags.py's; what their values mean is read after parsing.
FLAG_MODULES = {"flue_tui", "flue_tui.__main__"}
HEAVY = ("litellm", "textual", "logging", "concurrent.futures", "threading", "json", "uuid", "asyncio", "sqlite3")


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_help_and_version_import_only_the_cli(tmp_path, flag):
    """In a fresh interpreter: no workers, logging or thread pool just to print a version (issue 24)."""
    code = (
        f"import sys, runpy; sys.argv = ['flue', {flag!r}]\n"
        "try:\n    runpy.run_module('flue_tui', run_name='__main__')\nexcept SystemExit:\n    pass\n"
        "print(repr(sorted(m for m in sys.modules if m.startswith('flue_tui'))), file=sys.stderr)\n"
        f"print(repr([m for m in {HEAVY!r} if m in sys.modules]), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ), timeout=180
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("flue " if flag == "--version" else "usage: flue")
    ours, heavy = (ast.literal_eval(line) for line in out.stderr.splitlines()[-2:])
    assert heavy == []
    assert [m for m in ours if not m.startswith("flue_tui.cli") and m not in FLAG_MODULES] == []


@pytest.mark.parametrize(
    ("flag", "value", "choices"),
    [
        (
            "--permission-mode",
            "bogus",
            "'ask', 'accept-edits', 'plan', 'yolo', 'default', 'acceptEdits', 'bypassPermissions'",
        ),
        ("--sandbox", "jail", "'local', 'workspace'"),
    ],
)
def test_an_unknown_mode_or_sandbox_is_one_usage_line(flue_main, flag, value, choices):
    """Checked after parsing (permissions/flags.py keeps the names, cli/flags.py only the flag), in
    argparse's own words: exit 2, one line, nothing started."""
    out = flue_main("-p", "hi", flag, value)
    assert out.code == 2
    assert (
        out.stderr
        == f"flue: error: argument {flag}: invalid choice: {value!r} (choose from {choices}) (see flue --help)\n"
    )


def test_help_lists_the_subcommands():
    from flue_tui.cli.flue import build_parser

    text = build_parser().format_help()
    for sub in ("flue sessions", "flue doctor", "flue trust", "flue mcp"):
        assert sub in text, sub


def test_at_path_attaches_and_verbose_prints_each_tools_outcome(fakellm, flue_main, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    fakellm.script([Turn(calls=[Call("bash", {"command": "echo hi"})]), Turn(text="Two lines.")])
    out = flue_main(
        "-p", "--permission-mode", "yolo", "count @notes.txt and @gone.txt", "--model", "openai/fake", "--verbose"
    )
    assert out.code == 0, out.stderr
    sent = fakellm.requests[0]["messages"][-1]["content"]
    assert sent == "count @notes.txt and @gone.txt\n\nContents of notes.txt (2 lines):\n```\nalpha\nbeta\n```"
    lines = out.stderr.splitlines()
    assert "flue: attached notes.txt (2 lines)" in lines
    at = lines.index("tool bash echo hi")
    assert re.fullmatch(r"tool ok bash: exit 0 · \d+\.\ds", lines[at + 1]), lines


def test_verbose_names_a_refused_call_denied_not_error(fakellm, flue_main):
    """--verbose words a tool's end by its typed outcome: a refusal reads `denied`, a failure `error`."""
    fakellm.script(
        [Turn(calls=[Call("bash", {"command": "rm -rf x"}), Call("read", {"path": "missing.txt"})]), Turn(text="ok")]
    )
    out = flue_main("-p", "go", "--model", "openai/fake", "--permission-mode", "ask", "--verbose")
    assert out.code == 0, out.stderr
    lines = out.stderr.splitlines()
    assert any(line.startswith("tool denied bash: Permission denied") for line in lines), lines
    assert any(line.startswith("tool error read: ") for line in lines), lines
