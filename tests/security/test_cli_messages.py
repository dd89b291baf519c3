"""Item 13 of issue 13 (the CLI's part): one clear, true sentence, never a traceback.

Most of these stop before any model request, so they call `flue_tui.cli.flue.main` in-process; the
argv/stdin byte tests run the real entry point, since only a real process gets raw argv bytes.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flue_tui.agent.session import Session
from flue_tui.agent.toolrun import run_tool_batch
from flue_tui.cli.flue import main
from flue_tui.config.errors import EXIT_CONFIG
from flue_tui.config.settings import Settings
from flue_tui.core.abort import AbortSignal
from flue_tui.core.events import ToolOutput
from flue_tui.core.messages import ToolCall
from flue_tui.permissions.policy import policy_of
from flue_tui.runtime.wiring import Runtime
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.bash import BashTool

MODEL = ("--model", "openai/fake")


def _result(stdout: str) -> dict:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert lines and lines[-1]["type"] == "result"
    return lines[-1]


def test_cwd_that_is_a_file_is_called_what_it_is(tmp_path, capsys):
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    code = main(["-p", "hi", *MODEL, "--cwd", str(a_file), "--output-format", "json"])
    out = capsys.readouterr()
    assert code == EXIT_CONFIG == 2
    assert out.err == f"flue: Working directory is not a directory: {a_file}\n"
    result = _result(out.out)
    assert result["is_error"] is True and result["result"] == f"Working directory is not a directory: {a_file}"
    assert main(["-p", "hi", *MODEL, "--cwd", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"flue: Working directory does not exist: {tmp_path / 'nope'}\n"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        # Read while settings are layered (cli.py) ...
        ("model = 3\n", "model must be a string"),
        # ... and while the run is wired (runtime.py): both used to differ in exit code and output.
        ('[permissions]\nallow = "bash"\n', "[permissions] allow must be a list of strings"),
    ],
)
@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_every_configuration_error_exits_2_with_the_result_object(
    _isolated_home, tmp_path, capsys, config, message, fmt
):
    (_isolated_home / "config.toml").write_text(config)
    code = main(["-p", "hi", *MODEL, "--cwd", str(tmp_path), "--output-format", fmt])
    out = capsys.readouterr()
    assert code == 2
    assert out.err.startswith(f"flue: {_isolated_home / 'config.toml'}: ") and message in out.err
    assert out.err.count("\n") == 1 and "Traceback" not in out.err
    result = _result(out.out)
    assert result["is_error"] is True and message in result["result"] and result["num_turns"] == 0


def test_non_utf8_config_file_is_one_line(tmp_path, capsys):
    (tmp_path / ".flue").mkdir()
    config = tmp_path / ".flue" / "config.toml"
    config.write_bytes(b'# settings\nmodel = "caf\xe9"\n')
    code = main(["-p", "hi", *MODEL, "--cwd", str(tmp_path), "--output-format", "json"])
    out = capsys.readouterr()
    assert code == 2
    assert out.err == f"flue: {config}: not UTF-8 text (byte 0xe9 on line 2); TOML files must be UTF-8\n"
    assert _result(out.out)["is_error"] is True


def _flue(
    args: list[str | bytes], env: dict[str, str], cwd: Path, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "flue_tui", *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=180,  # generous, as run_flue: a fresh flue imports litellm
    )


def test_non_utf8_prompt_bytes_are_refused_with_where_they_are(flue_env, tmp_path, fakellm):
    argv = _flue(["-p", b"caf\xe9 au lait", *MODEL, "--output-format", "json"], flue_env, tmp_path)
    assert argv.returncode == 2, argv.stderr
    assert argv.stderr.decode() == (
        "flue: The prompt is not UTF-8 text (byte 0xe9 at offset 3); convert it first, e.g. with iconv -t UTF-8.\n"
    )
    assert _result(argv.stdout.decode())["is_error"] is True
    piped = _flue(["-p", *MODEL], flue_env, tmp_path, stdin=b"na\xefve question")
    assert piped.returncode == 2
    assert piped.stderr.decode() == (
        "flue: The prompt on stdin is not UTF-8 text (byte 0xef at offset 2); "
        "convert it first, e.g. with iconv -t UTF-8.\n"
    )
    assert fakellm.requests == []  # nothing mangled was sent


def test_in_process_surrogates_in_the_prompt_are_refused(tmp_path, capsys):
    assert main(["-p", "caf\udce9", *MODEL, "--cwd", str(tmp_path)]) == 2
    assert "The prompt is not UTF-8 text (byte 0xe9 at offset 3)" in capsys.readouterr().err


async def test_a_killed_command_is_not_said_to_be_still_running(tmp_path):
    # The sandbox SIGTERMs the command's process group on abort and waits for it to exit: the
    # model is told the plain abort (Flue's local() text), not "may still be running".
    sandbox = LocalSandbox(str(tmp_path))
    session = Session(model=None, tools=[BashTool(sandbox)], cwd=str(tmp_path))  # type: ignore[arg-type]
    started = asyncio.Event()
    session.subscribe(lambda e: started.set() if isinstance(e, ToolOutput) and "ready" in e.chunk else None)
    signal = AbortSignal()
    call = ToolCall(id="call_1", name="bash", arguments={"command": "echo $$ > pid; echo ready; exec sleep 60"})
    batch = asyncio.ensure_future(run_tool_batch(session, [call], signal))
    await asyncio.wait_for(started.wait(), 60)
    signal.abort()
    [result] = await asyncio.wait_for(batch, 60)
    assert result.is_error and result.text == "This operation was aborted"
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "pid").read_text()), 0)


async def test_a_task_cwd_the_sandbox_refuses_is_a_permission_denial(tmp_path):
    settings = Settings.from_env(model="openai/fake", cwd=str(tmp_path), sandbox="workspace")
    session, _ = Runtime(settings).new_session()
    call = ToolCall(
        id="call_t", name="task", arguments={"prompt": "look around", "agent": "flue-general", "cwd": "/etc"}
    )
    [result] = await run_tool_batch(session, [call], AbortSignal())
    assert result.is_error and result.text == "path escapes workspace boundary: /etc"
    denials = [d.to_dict() for d in policy_of(session).denials]
    assert denials == [
        {
            "tool_name": "task",
            "tool_use_id": "call_t",
            "tool_input": {"prompt": "look around", "agent": "flue-general", "cwd": "/etc"},
        }
    ]


@pytest.mark.parametrize("flag", ["--system-prompt-file", "--json-schema"])
def test_non_utf8_files_named_by_flags_are_one_line(tmp_path, capsys, flag):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b'{"title": "caf\xe9"}')
    code = main(["-p", "hi", *MODEL, "--cwd", str(tmp_path), flag, str(bad), "--output-format", "json"])
    out = capsys.readouterr()
    assert code == 2
    what = "--json-schema file" if flag == "--json-schema" else flag
    assert out.err == (
        f"flue: {what} {bad} is not UTF-8 text (byte 0xe9 at offset 14); convert it first, e.g. with iconv -t UTF-8.\n"
    )
    assert _result(out.out)["is_error"] is True
