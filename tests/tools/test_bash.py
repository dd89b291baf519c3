"""The bash tool: Flue's result texts, timeouts, tails, live output, abort and the env allowlist."""

from __future__ import annotations

import asyncio
import time

import pytest

from flue_tui.core.abort import AbortError, AbortSignal
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.base import ToolContext
from flue_tui.tools.bash import BashTool, format_bash_text

from .conftest import read_pid, reset_peak_rss, status_kb, wait_dead


@pytest.fixture
def bash(tmp_path) -> BashTool:
    return BashTool(LocalSandbox(str(tmp_path)))


async def test_success_output(bash, ctx):
    r = await bash.execute({"command": "echo hello; echo warn >&2"}, ctx)
    assert r.text == "hello\n\nwarn"  # stdout + "\n" + stderr, then trim
    assert r.details.command == "echo hello; echo warn >&2"
    assert r.details.exit_code == 0 and isinstance(r.details.duration_ms, int)
    assert not r.is_error


async def test_nonzero_exit_text(bash, ctx):
    r = await bash.execute({"command": "echo oops >&2; exit 7"}, ctx)
    assert r.text == "oops\n\nCommand exited with code 7"
    assert r.details.exit_code == 7
    assert not r.is_error  # a failing command is a normal result in Flue


async def test_no_output(bash, ctx):
    assert (await bash.execute({"command": "true"}, ctx)).text == "(no output)"
    assert (await bash.execute({"command": "printf '  \\n\\n'; exit 3"}, ctx)).text == (
        "(no output)\n\nCommand exited with code 3"
    )


async def test_timeout_text_and_process_tree_killed(bash, ctx, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    t0 = time.monotonic()
    r = await bash.execute({"command": f"sleep 300 & echo $! > {pidfile}; echo started; wait", "timeout": 1}, ctx)
    assert time.monotonic() - t0 < 150  # the 1 s timeout, not the 300 s sleep (generous for a loaded box)
    assert r.text == "[flue] Command timed out after 1 seconds.\n\nCommand exited with code 124"
    assert r.details.exit_code == 124
    grandchild = read_pid(pidfile)
    kill_leftovers.append(grandchild)
    assert wait_dead(grandchild)


async def test_timeout_number_formatting(bash, ctx):
    # `sleep 60`: far beyond the timeout, so a slow start on a loaded box cannot let it finish first.
    r = await bash.execute({"command": "sleep 60", "timeout": 0.25}, ctx)
    assert r.text == "[flue] Command timed out after 0.25 seconds.\n\nCommand exited with code 124"
    r = await bash.execute({"command": "sleep 60", "timeout": 1.0}, ctx)
    assert r.text == "[flue] Command timed out after 1 seconds.\n\nCommand exited with code 124"


async def test_tail_truncation_without_notice(bash, ctx):
    r = await bash.execute({"command": "seq 1 5000"}, ctx)
    assert r.text == "\n".join(str(i) for i in range(3001, 5001))
    r = await bash.execute({"command": "printf 'x%.0s' $(seq 1 60000)"}, ctx)
    assert r.text == "x" * 51200


async def test_format_bash_text_rules():
    assert format_bash_text("out\n", "", 0) == "out"
    assert format_bash_text("", "err", 0) == "err"
    assert format_bash_text("  \n", "\n", 2) == "(no output)\n\nCommand exited with code 2"
    long = "y" * 60000
    assert format_bash_text(long, "", 1) == "y" * 51200 + "\n\nCommand exited with code 1"


async def test_200mb_output_is_bounded_and_capped(bash, ctx):
    reset_peak_rss()
    base = status_kb("VmRSS")
    chunks = 0

    def sink(stream: str, chunk: str) -> None:
        nonlocal chunks
        chunks += 1

    r = await bash.execute({"command": "yes | head -c 200M"}, ToolContext("c", AbortSignal(), sink))
    grown_mb = (status_kb("VmHWM") - base) / 1024
    tail = r.text.split("\n\n[flue]")[0]
    assert r.text.endswith(
        "\n\n[flue] local exec output exceeded 67108864 bytes; process tree killed\n\nCommand exited with code 1"
    )
    assert set(tail) <= {"y", "\n"} and len(r.text) <= 51200 + 200
    assert r.details.exit_code == 1
    assert chunks > 10
    assert grown_mb < 100, grown_mb


async def test_live_output_reaches_the_context_before_the_end(bash, tmp_path):
    # The command waits for a file the first chunk's callback creates: it cannot end before that
    # chunk reached the context (a condition, not a timing, so it holds on a loaded machine).
    seen: list[tuple[str, str]] = []

    def on_output(stream: str, chunk: str) -> None:
        seen.append((stream, chunk))
        (tmp_path / "got").touch()

    ctx = ToolContext("c", AbortSignal(), on_output)
    r = await bash.execute({"command": f"echo one; until [ -e {tmp_path}/got ]; do sleep 0.02; done; echo two"}, ctx)
    assert r.text == "one\ntwo"
    assert seen[0] == ("stdout", "one\n")
    assert "".join(c for _, c in seen) == "one\ntwo\n"


async def _abort_once_written(pidfile, signal: AbortSignal) -> None:
    await asyncio.to_thread(read_pid, pidfile)
    signal.abort()


async def test_host_abort_kills_group_and_raises(bash, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    signal = AbortSignal()
    aborter = asyncio.ensure_future(_abort_once_written(pidfile, signal))  # the command is running by then
    t0 = time.monotonic()
    with pytest.raises(AbortError) as exc:
        await bash.execute(
            {"command": f"sleep 300 & echo $! > {pidfile}; wait", "timeout": 250}, ToolContext("c", signal)
        )
    await aborter
    assert str(exc.value) == "This operation was aborted"
    assert time.monotonic() - t0 < 150  # the abort, not the 300 s sleep (generous for a loaded box)
    grandchild = read_pid(pidfile)
    kill_leftovers.append(grandchild)
    assert wait_dead(grandchild)


async def test_cancelling_the_tool_task_kills_the_group(bash, ctx, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    task = asyncio.create_task(bash.execute({"command": f"sleep 60 & echo $! > {pidfile}; wait"}, ctx))
    grandchild = await asyncio.to_thread(read_pid, pidfile)
    kill_leftovers.append(grandchild)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(grandchild)


async def test_env_allowlist(tmp_path, ctx, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    bash = BashTool(LocalSandbox(str(tmp_path), env={"PROJECT_FLAG": "on"}))
    r = await bash.execute({"command": "env"}, ctx)
    assert "OPENAI_API_KEY" not in r.text and "sk-secret-value" not in r.text
    assert "ANTHROPIC_API_KEY" not in r.text
    assert "PROJECT_FLAG=on" in r.text.splitlines()
