"""The GitHub Action's work (run.sh `exec`s it on flue's Python): `flue -p` with the inputs, then the
step outputs and the exported session.

This process is where the step's keys live while flue runs, and an ancestor of every command the
agent runs: so before anything else it does what flue does for itself (procguard.harden): zero
every key in its original environment block, which /proc/PID/environ shows, and become
non-dumpable, so `mem` and the rest are closed to commands of the same user. The keys stay in
os.environ for flue and for the redaction of the outputs.

Inputs arrive as INPUT_* variables and only ever become single arguments, never shell text, so a
prompt with quotes, `$(…)` or newlines stays a prompt.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from flue_tui.sandbox import procguard

procguard.harden()  # first, before anything can start or read this process

import nosudo  # noqa: E402 (after harden: nothing may run before it)
import outputs  # noqa: E402

# What the action ran with before it said so (flue -p's old default): a call runs unasked.
DEFAULT_MODE = "yolo"


def fail(message: str) -> int:
    print(f"flue action: {message}", file=sys.stderr)
    return 2


def flue_args(env: Mapping[str, str]) -> list[str] | str:
    """flue's arguments from the inputs, or the sentence saying which input is wrong."""
    args = ["-p", "--output-format", "json"]
    args += ["--permission-mode", env.get("INPUT_PERMISSION_MODE", "").strip() or DEFAULT_MODE]
    for name, flag in (
        ("MODEL", "--model"),
        ("ALLOWED_TOOLS", "--allowed-tools"),
        ("MAX_BUDGET_USD", "--max-budget-usd"),
        ("SESSION", "--session"),
    ):
        if value := env.get(f"INPUT_{name}", ""):
            args += [flag, value]
    try:  # split as a shell would, without running anything
        args += shlex.split(env.get("INPUT_ARGS", ""))
    except ValueError as exc:
        return f"the args input cannot be read as shell words ({exc})"
    # Last, after `--`: a prompt (an issue's text) that starts with `-` is still the prompt, never an option.
    return [*args, "--", env.get("INPUT_PROMPT", "")]


def export(flue: str, session_id: str, temp: Path) -> str:
    """The session exported (redacted by `flue sessions export`) for upload-artifact, or ""."""
    if not session_id:
        return ""
    path = temp / f"flue-session-{session_id}.json"
    path.unlink(missing_ok=True)
    command = [flue, "sessions", "export", session_id, "--format", "json", "-o", str(path)]
    if subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).returncode != 0:
        print(f"flue action: the session {session_id} could not be exported", file=sys.stderr)
        return ""
    return str(path)


def run_flue(command: list[str]) -> tuple[int, str]:
    """flue's exit status and output. A cancelled job's signal (the runner sends it to this
    process, the step's own) goes on to flue, which ends its run and prints the result; the
    outputs are then written as for any other end."""
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, forward)
    stdout, _ = child.communicate()
    code = child.returncode if child.returncode >= 0 else 128 - child.returncode  # as a shell says
    return code, stdout.decode("utf-8", errors="replace")


def main(flue: str) -> int:
    env = os.environ
    if not env.get("GITHUB_OUTPUT"):
        return fail("GITHUB_OUTPUT is not set (a file the step outputs are written to)")
    if not env.get("INPUT_PROMPT", "").strip():
        return fail("the prompt input is empty")
    args = flue_args(env)
    if isinstance(args, str):
        return fail(args)
    if (refused := nosudo.drop(env)) is not None:
        return fail(refused)
    temp = Path(env.get("RUNNER_TEMP") or env.get("TMPDIR") or "/tmp")
    # The job's sessions and config live apart from anything on the runner, unless the workflow chose.
    env.setdefault("FLUE_HOME", str(temp / "flue-home"))
    os.makedirs(env["FLUE_HOME"], exist_ok=True)
    workdir = env.get("INPUT_WORKING_DIRECTORY") or "."
    try:
        os.chdir(workdir)
    except OSError:
        return fail(f"working-directory does not exist: {workdir}")
    code, stdout = run_flue([flue, *args])
    found = outputs.result(stdout)
    session_file = export(flue, outputs.session_id(found), temp)
    with open(env["GITHUB_OUTPUT"], "a", encoding="utf-8") as fh:
        fh.write(outputs.github_output(found, session_file, code, env))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else fail("usage: run.py FLUE"))
