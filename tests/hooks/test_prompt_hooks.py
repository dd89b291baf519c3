"""UserPromptSubmit and Stop hooks through the real `flue -p` against tests/fakellm."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fakellm import Turn


def _settings(event: str, script: Path) -> str:
    hook = {"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}
    return json.dumps({"hooks": {event: [hook]}})


def _user_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def test_user_prompt_submit_blocks_the_prompt(fakellm, flue_main, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(
        "import json, sys\nd = json.load(sys.stdin)\n"
        "if 'secret' in d['prompt']:\n    print('no secrets in prompts', file=sys.stderr); sys.exit(2)\n"
    )
    fakellm.script([Turn(text="never")])
    out = flue_main(
        "-p", "tell the secret", "--model", "openai/fake", "--output-format", "json",
        "--settings", _settings("UserPromptSubmit", script), cwd=tmp_path,
    )  # fmt: skip
    result = json.loads(out.stdout)
    assert result["is_error"] is True and "no secrets in prompts" in result["result"]
    assert fakellm.requests == []  # the prompt never reached the model


def test_user_prompt_submit_adds_context(fakellm, flue_main, tmp_path):
    script = tmp_path / "ctx.py"
    script.write_text(
        "import json\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'UserPromptSubmit', "
        "'additionalContext': 'The build is red.'}}))\n"
    )
    fakellm.script([Turn(text="ok")])
    out = flue_main(
        "-p", "hello", "--model", "openai/fake", "--settings", _settings("UserPromptSubmit", script), cwd=tmp_path
    )
    assert out.code == 0, out.stderr
    assert _user_texts(fakellm.requests[0]) == ["hello\n\nThe build is red."]


def test_stop_block_continues_the_turn_once_and_stop_hook_active_ends_it(fakellm, flue_main, tmp_path):
    log = tmp_path / "stops.jsonl"
    script = tmp_path / "stop.py"
    script.write_text(
        f"import json, sys\nd = json.load(sys.stdin)\nopen({str(log)!r}, 'a').write(json.dumps(d) + '\\n')\n"
        "if not d['stop_hook_active']:\n    print(json.dumps({'decision': 'block', 'reason': 'run the tests first'}))\n"
    )
    fakellm.script([Turn(text="first"), Turn(text="tests pass")])
    out = flue_main(
        "-p", "fix it", "--model", "openai/fake", "--output-format", "json",
        "--settings", _settings("Stop", script), cwd=tmp_path,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["result"] == "tests pass"
    assert _user_texts(fakellm.requests[1]) == ["fix it", "run the tests first"]
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [d["stop_hook_active"] for d in seen] == [False, True]
    assert seen[0]["hook_event_name"] == "Stop"


def test_a_stop_hook_that_always_blocks_ends_after_a_bound(fakellm, flue_main, tmp_path):
    from flue_tui.agent.prompthooks import MAX_STOP_ROUNDS

    script = tmp_path / "stop.py"
    script.write_text("import json\nprint(json.dumps({'decision': 'block', 'reason': 'again'}))\n")
    fakellm.script([Turn(text=f"reply {n}") for n in range(MAX_STOP_ROUNDS + 1)])
    out = flue_main("-p", "go", "--model", "openai/fake", "--settings", _settings("Stop", script), cwd=tmp_path)
    assert out.code == 0, out.stderr
    assert len(fakellm.requests) == MAX_STOP_ROUNDS + 1


def test_the_checkpoint_is_whole_before_a_user_prompt_submit_hook_changes_a_file(fakellm, flue_main, tmp_path):
    """The checkpoint is taken beside the first request (agent/pending.py), but a hook may change
    files: with hooks configured, it is taken before they run."""
    from flue_tui.checkpoints import FileCheckpoints
    from flue_tui.config.paths import checkpoints_home

    (tmp_path / "a.txt").write_text("v1")
    for i in range(3000):  # a snapshot slower than the hook's start: an early hook would be inside it
        (tmp_path / f"f{i}.txt").write_text(str(i))
    script = tmp_path / "change.py"
    script.write_text(f"open({str(tmp_path / 'a.txt')!r}, 'w').write('changed by the hook')\n")
    fakellm.script([Turn(text="ok")])
    out = flue_main(
        "-p", "hello", "--model", "openai/fake", "--output-format", "json",
        "--settings", _settings("UserPromptSubmit", script), cwd=tmp_path,
    )  # fmt: skip
    assert out.code == 0, out.stderr
    assert (tmp_path / "a.txt").read_text() == "changed by the hook"
    files = FileCheckpoints(tmp_path, checkpoints_home())
    files.restore(files.numbered(json.loads(out.stdout)["session_id"])[1])
    assert (tmp_path / "a.txt").read_text() == "v1"
