"""`flue -p "/name args"` runs a `.claude/commands` command as Claude Code's `-p` does, on a
workspace whose `.claude/` is copied from public repositories (tests/context/claude_folder, its
README names each file's source and commit: anthropics/claude-code @ 5889ae69,
1215-Labs/claude-code-templates @ 6a28e042 and @ 477f6634)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.fakellm import Call, Turn

FOLDER = Path(__file__).parent / "context" / "claude_folder" / ".claude"


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(FOLDER, tmp_path / ".claude")
    return tmp_path


def test_a_namespaced_command_runs_with_hostile_arguments_kept_as_typed(fakellm, flue_main, tmp_path: Path):
    _copy(tmp_path)
    fakellm.script(Turn(text="Root cause found."))
    args = "CI red; rm -rf ~ $(touch pwned) `touch pwned2` $HOME 'quoted arg'"
    out = flue_main("-p", f"/workflow:rca {args}", "--model", "openai/fake", "--output-format", "json")
    result = json.loads(out.stdout)
    assert (out.code, result["result"]) == (0, "Root cause found."), out.stderr
    sent = fakellm.requests[-1]["messages"][-1]["content"]
    assert sent.startswith("# Root Cause Analysis\n\n**Issue to investigate**: " + args + "\n")
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
    shown = flue_main("sessions", "show", result["session_id"]).stdout
    assert "/workflow:rca CI red;" in shown and "Root Cause Analysis" not in shown  # recorded as typed


def test_a_command_without_placeholder_gets_arguments_appended(fakellm, flue_main, tmp_path: Path):
    _copy(tmp_path)
    fakellm.script([Turn(text="one"), Turn(text="two")])
    assert flue_main("-p", "/commit-push-pr", "--model", "openai/fake").code == 0
    bare = fakellm.requests[-1]["messages"][-1]["content"]
    assert bare.startswith("## Context\n") and "ARGUMENTS:" not in bare and "allowed-tools" not in bare
    assert flue_main("-p", "/commit-push-pr to the release branch", "--model", "openai/fake").code == 0
    assert fakellm.requests[-1]["messages"][-1]["content"].endswith("\n\nARGUMENTS: to the release branch")


def test_a_command_named_like_an_app_command_does_not_replace_it(fakellm, flue_main, tmp_path: Path):
    _copy(tmp_path)
    (tmp_path / ".claude" / "commands" / "help.md").write_text("Pretend to be help.\n")
    out = flue_main("-p", "/help", "--model", "openai/fake")
    assert out.code == 2 and fakellm.requests == []
    assert out.stderr == (
        "flue: /help is a command of the interactive app (it hides the custom command of that name); "
        "it is not available with -p.\n"
    )
    typo = flue_main("-p", "/workflow:rcaa x", "--model", "openai/fake")
    assert typo.code == 2 and "did you mean /workflow:rca?" in typo.stderr


def test_a_broken_command_is_one_line_and_the_rest_still_run(fakellm, flue_main, tmp_path: Path):
    _copy(tmp_path)
    (tmp_path / ".claude" / "commands" / "bad.md").write_bytes(b"---\nallowed-tools: {\n---\n\xff\n")
    fakellm.script(Turn(text="ok"))
    out = flue_main("-p", "/commit-push-pr", "--model", "openai/fake")
    assert out.code == 0
    bad = [line for line in out.stderr.splitlines() if "/bad" in line]
    assert len(bad) == 1 and bad[0].startswith('[flue] Skipping the project command "/bad":')
    assert "Traceback" not in out.stderr


def test_an_agent_file_limits_its_child_through_print_mode(fakellm, flue_main, tmp_path: Path):
    _copy(tmp_path)
    fakellm.script(
        [
            Turn(match="review", calls=[Call("task", {"prompt": "look at the diff", "agent": "code-reviewer"})]),
            Turn(match="look at the diff", text="LGTM"),
            Turn(text="Reviewed: LGTM"),
        ]
    )
    out = flue_main("-p", "review", "--model", "openai/fake")
    assert (out.code, out.stdout) == (0, "Reviewed: LGTM\n"), out.stderr
    child = next(r for r in fakellm.requests if r["messages"][-1]["content"] == "look at the diff")
    assert sorted(t["function"]["name"] for t in child["tools"]) == ["bash", "bash_background", "glob", "grep", "read"]
    assert child["messages"][0]["content"].startswith("You are a senior code reviewer")


def test_allowed_tools_run_unasked_only_after_flue_trust(fakellm, flue_main, tmp_path: Path):
    commands = tmp_path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "mk.md").write_text("---\nallowed-tools: Bash(touch:*)\n---\nCreate the file $1.\n")
    touch = Turn(calls=[Call("bash", {"command": "touch made.txt"})])
    fakellm.script([touch, Turn(text="asked"), touch, Turn(text="made")])
    first = flue_main("-p", "/mk made.txt", "--model", "openai/fake", "--permission-mode", "ask")
    assert first.code == 0 and not (tmp_path / "made.txt").exists()
    assert "/mk: its allowed-tools are not pre-allowed until you trust this project." in first.stderr
    trusted = flue_main("trust", "--yes")
    assert trusted.code == 0, trusted.stderr
    second = flue_main("-p", "/mk made.txt", "--model", "openai/fake", "--permission-mode", "ask")
    assert second.code == 0 and (tmp_path / "made.txt").exists(), second.stderr


def test_plain_mode_runs_commands_too(fakellm, flue_main, tmp_path: Path):
    _copy(tmp_path)
    fakellm.script(Turn(text="Done."))
    out = flue_main(
        "--plain", "--trust-project", "--model", "openai/fake", stdin="/workflow:rcaa\n/workflow:rca a | b\n"
    )
    assert out.code == 0
    assert "flue: Unknown command /workflow:rcaa — did you mean /workflow:rca?" in out.stderr
    assert len(fakellm.requests) == 1
    assert "**Issue to investigate**: a | b\n" in fakellm.requests[0]["messages"][-1]["content"]


def test_a_command_sent_over_stream_json_runs_as_the_agent_sdk_expects(fakellm, flue_main, tmp_path: Path):
    """An Agent SDK script's `query("/workflow:rca …")` arrives as a stream-json user message: the
    command runs (before, the text `/workflow:rca …` reached the model as it was)."""
    _copy(tmp_path)
    fakellm.script([Turn(text="Root cause found."), Turn(text="Plain answer.")])
    lines = [
        {"type": "user", "message": {"role": "user", "content": "/workflow:rca CI red"}},
        {"type": "user", "message": {"role": "user", "content": "/not-a-command stays text"}},
    ]
    out = flue_main(
        "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
        "--model", "openai/fake", stdin="".join(json.dumps(line) + "\n" for line in lines),
    )  # fmt: skip
    assert out.code == 0, out.stderr
    init = next(m for m in map(json.loads, out.stdout.splitlines()) if m.get("subtype") == "init")
    assert {"workflow:rca", "commit-push-pr"} <= set(init["slash_commands"])  # as Claude Code lists them
    first, second = (r["messages"][-1]["content"] for r in fakellm.requests)
    assert first.startswith("# Root Cause Analysis\n\n**Issue to investigate**: CI red\n")
    assert second == "/not-a-command stays text"
