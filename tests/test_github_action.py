"""The GitHub Action's script (.github/action/run.sh, what action.yml's step runs), run as the
runner would: INPUT_* variables, a GITHUB_OUTPUT file, RUNNER_TEMP; against the scripted model
(issue 29). A fake key in the environment must be in no output, no log line and not the artifact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.fakellm import Call, Turn

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".github" / "action" / "run.sh"
KEY = "sk-fake-action-key-0123456789"
OUTPUTS = {"result", "is_error", "total_cost_usd", "session_id", "checkpoint", "session_file", "exit_code"}


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT's syntax as the runner reads it: `name<<DELIMITER`, lines, `DELIMITER`."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").split("\n"))
    for line in lines:
        if not line:
            continue
        name, _, delimiter = line.partition("<<")
        assert delimiter, f"not the multi-line syntax: {line!r}"
        value = []
        for body in lines:
            if body == delimiter:
                break
            value.append(body)
        found[name] = "\n".join(value)
    return found


def run_action(fakellm, tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    work = tmp_path / "repo"
    work.mkdir(exist_ok=True)
    (work / "README.md").write_text("# A project\n")
    outputs = tmp_path / "github_output"
    outputs.touch()
    runner_temp = tmp_path / "runner_temp"
    runner_temp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INPUT_", "FLUE_"))}
    env.update(
        {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "GITHUB_OUTPUT": str(outputs),
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_WORKSPACE": str(tmp_path),
            "OPENAI_BASE_URL": fakellm.base_url,
            "OPENAI_API_KEY": KEY,
            "FLUE_RETRY_BASE_MS": "5",
            "INPUT_WORKING_DIRECTORY": str(work),
        }
    )
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    proc = subprocess.run(
        ["bash", str(SCRIPT)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    return proc, outputs


def test_a_run_gives_every_output_and_a_redacted_session_file(fakellm, tmp_path):
    hostile = 'review this"; touch pwned; $(touch pwned2) `touch pwned3`\nline two'
    fakellm.script(
        [
            Turn(calls=[Call("read", {"path": "README.md"})]),
            # The model repeats a key it found somewhere (a file, a log): the action must not publish it.
            Turn(text=f"Looks fine. The key is {KEY}.\nresult<<EOF\ninjected\nEOF"),
        ]
    )
    proc, outputs = run_action(
        fakellm,
        tmp_path,
        prompt=hostile,
        model="openai/fake",
        permission_mode="plan",
        allowed_tools="read,grep",
        session="ci-42",
        args='--max-turns 5 --append-system-prompt "be brief; $(touch pwned4)"',
    )
    assert proc.returncode == 0, proc.stderr
    out = read_outputs(outputs)
    assert set(out) == OUTPUTS
    assert out["result"] == "Looks fine. The key is [redacted OPENAI_API_KEY].\nresult<<EOF\ninjected\nEOF"
    assert out["is_error"] == "false" and out["exit_code"] == "0"
    assert out["session_id"].startswith("ses_")
    assert out["total_cost_usd"] == ""  # openai/fake has no known price: unknown, never 0
    assert "checkpoint" in out
    # The inputs reached flue as arguments, each whole; nothing of them ran.
    first = fakellm.requests[0]
    assert first["messages"][-1]["content"] == hostile
    assert "be brief; $(touch pwned4)" in first["messages"][0]["content"]
    assert not list(tmp_path.rglob("pwned*"))
    # The artifact: the whole session, importable, with the key redacted.
    session_file = Path(out["session_file"])
    assert session_file.parent == tmp_path / "runner_temp"
    exported = json.loads(session_file.read_text())
    assert exported["session"]["id"] == out["session_id"] and exported["session"]["name"] == "ci-42"
    assert any(m.get("tool_calls") for m in exported["messages"])
    for where, text in {
        "outputs": outputs.read_text(),
        "stdout": proc.stdout,
        "stderr": proc.stderr,
        "artifact": session_file.read_text(),
    }.items():
        assert KEY not in text, where


def test_a_failed_start_still_sets_the_outputs_and_fails_the_step(fakellm, tmp_path):
    # --max-budget-usd with a model flue cannot price is refused before anything is sent.
    proc, outputs = run_action(fakellm, tmp_path, prompt="hi", model="openai/fake", max_budget_usd="1")
    assert proc.returncode == 2
    out = read_outputs(outputs)
    assert out["is_error"] == "true" and out["exit_code"] == "2" and out["session_file"] == ""
    assert fakellm.requests == []
    assert KEY not in proc.stderr + outputs.read_text()


def test_an_empty_prompt_is_one_sentence(fakellm, tmp_path):
    proc, outputs = run_action(fakellm, tmp_path, prompt="  \n")
    assert proc.returncode == 2 and proc.stderr == "flue action: the prompt input is empty\n"
    assert outputs.read_text() == ""


def test_unbalanced_args_are_one_sentence_and_nothing_runs(fakellm, tmp_path):
    proc, outputs = run_action(fakellm, tmp_path, prompt="hi", args='--append-system-prompt "open')
    assert proc.returncode == 2 and "the args input cannot be read as shell words" in proc.stderr
    assert fakellm.requests == [] and outputs.read_text() == ""


def test_action_yml_passes_every_input_to_the_script_and_maps_every_output():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    inputs = set(action["inputs"])
    assert inputs == {
        "prompt",
        "model",
        "permission-mode",
        "allowed-tools",
        "max-budget-usd",
        "session",
        "working-directory",
        "args",
    }
    assert action["runs"]["using"] == "composite"
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "flue")
    assert step["env"] == {f"INPUT_{n.upper().replace('-', '_')}": f"${{{{ inputs.{n} }}}}" for n in inputs}
    assert "${{" not in step["run"]  # inputs never spliced into the script text
    assert set(action["outputs"]) == OUTPUTS - {"exit_code"}
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.flue.outputs.{name} }}}}"
    install = next(s for s in action["runs"]["steps"] if "uv tool install" in s.get("run", ""))
    assert '"$GITHUB_ACTION_PATH"' in install["run"]  # the action's own ref, no registry or URL
