"""LocalSandbox.exec: shell, env allowlist, streaming, decoding, exit codes, kills, output cap."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from flue_tui.core.abort import AbortError, AbortSignal
from flue_tui.sandbox.base import ExecResult
from flue_tui.sandbox.local import LocalSandbox, _resolve_shell

from .conftest import read_pid, reset_peak_rss, status_kb, wait_dead

CAP_MESSAGE = "\n[flue] local exec output exceeded 67108864 bytes; process tree killed"


async def test_exit_code_and_separate_streams(sandbox):
    r = await sandbox.exec("echo out; echo err >&2; exit 3")
    assert r == ExecResult("out\n", "err\n", 3)


async def test_runs_in_cwd_and_per_call_cwd(sandbox, tmp_path):
    (tmp_path / "sub").mkdir()
    assert (await sandbox.exec("pwd")).stdout == f"{tmp_path}\n"
    assert (await sandbox.exec("pwd", cwd="sub")).stdout == f"{tmp_path}/sub\n"


def test_shell_is_absolute_bash():
    shell = _resolve_shell()
    assert shell.startswith("/") and os.path.basename(shell) in ("bash", "sh")


async def test_bashisms_work(sandbox):
    r = await sandbox.exec("set -o pipefail; [[ 1 == 1 ]] && echo yes")
    assert r == ExecResult("yes\n", "", 0)


async def test_stdin_is_devnull(sandbox):
    r = await sandbox.exec("cat; echo done")
    assert r == ExecResult("done\n", "", 0)


async def test_env_allowlist_hides_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("SOME_HOST_VAR", "host")
    monkeypatch.setenv("LANG", "C.UTF-8")
    sb = LocalSandbox(str(tmp_path), env={"MY_ADDITION": "hello", "LANG": None})
    monkeypatch.setenv("LATE_VAR", "late")  # the snapshot is taken at construction
    out = (await sb.exec("env")).stdout
    names = {line.split("=", 1)[0] for line in out.splitlines() if "=" in line}
    assert "OPENAI_API_KEY" not in names and "sk-must-not-leak" not in out
    assert "SOME_HOST_VAR" not in names and "LATE_VAR" not in names
    assert "LANG" not in names
    assert "MY_ADDITION=hello" in out.splitlines()
    assert "PATH" in names


def test_env_must_be_a_dict(tmp_path):
    with pytest.raises(TypeError) as exc:
        LocalSandbox(str(tmp_path), env=["A=1"])  # type: ignore[arg-type]
    assert str(exc.value) == (
        "[flue] local() `env` must be a Record<string, string | undefined>. "
        "To inherit the full host env, pass `env: { ...process.env }`."
    )


async def test_live_chunks_arrive_before_the_command_ends(sandbox, tmp_path):
    # Each step waits for a file the previous chunk's callback creates: the command cannot go on, let
    # alone end, until that chunk was delivered live. Holds however slow the machine is.
    seen: list[tuple[str, str]] = []

    def on_output(stream: str, chunk: str) -> None:
        seen.append((stream, chunk))
        (tmp_path / f"got-{len(seen)}").touch()

    r = await sandbox.exec(
        f"echo first; until [ -e {tmp_path}/got-1 ]; do sleep 0.02; done; echo second >&2; "
        f"until [ -e {tmp_path}/got-2 ]; do sleep 0.02; done; echo third",
        on_output=on_output,
    )
    assert r == ExecResult("first\nthird\n", "second\n", 0)
    assert seen == [("stdout", "first\n"), ("stderr", "second\n"), ("stdout", "third\n")]


async def test_multibyte_char_split_across_chunks(sandbox):
    chunks: list[str] = []
    r = await sandbox.exec(
        r"printf '\xe2'; sleep 0.2; printf '\x82\xac\xf0\x9f'; sleep 0.2; printf '\x98\x80'",
        on_output=lambda s, c: chunks.append(c),
    )
    assert r.stdout == "€😀"
    assert "".join(chunks) == "€😀"


async def test_invalid_utf8_is_replaced(sandbox):
    r = await sandbox.exec(r"printf 'a\xffb\xe2\x82'")
    assert r.stdout == "a\ufffdb\ufffd"


async def test_spawn_failure_is_a_result(tmp_path):
    sb = LocalSandbox(str(tmp_path / "missing-dir"))
    r = await sb.exec("echo hi")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr == f"spawn {_resolve_shell()} ENOENT"


async def test_timeout_kills_the_process_tree(sandbox, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    t0 = time.monotonic()
    r = await sandbox.exec(f"sleep 300 & echo $! > {pidfile}; wait", timeout_ms=500)
    assert time.monotonic() - t0 < 150  # not the 300 s the grandchild holds the pipe (generous for a loaded box)
    grandchild = read_pid(pidfile)
    kill_leftovers.append(grandchild)
    assert r.exit_code == 124
    assert wait_dead(grandchild)


async def test_sigkill_after_grace_when_sigterm_is_ignored(sandbox, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    t0 = time.monotonic()
    r = await sandbox.exec(
        f"trap '' TERM; bash -c \"trap '' TERM; echo \\$\\$ > {pidfile}; sleep 300\"", timeout_ms=300
    )
    took = time.monotonic() - t0
    kill_leftovers.append(read_pid(pidfile))
    assert r.exit_code == 124
    assert 2.0 <= took < 150  # the grace period, then SIGKILL; never the whole `sleep 300` (generous: a loaded box)
    assert wait_dead(read_pid(pidfile))


async def test_killed_by_foreign_signal_is_exit_1(sandbox):
    r = await sandbox.exec("kill -9 $$")
    assert r.exit_code == 1


async def test_abort_kills_group_and_raises(sandbox, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    signal = AbortSignal()

    async def abort_once_running() -> None:  # not after a fixed 0.4 s: a loaded box may not have started it
        await asyncio.to_thread(read_pid, pidfile)
        signal.abort()

    aborter = asyncio.ensure_future(abort_once_running())
    with pytest.raises(AbortError) as exc:
        await sandbox.exec(f"sleep 300 & echo $! > {pidfile}; wait", signal=signal)
    await aborter
    assert str(exc.value) == "This operation was aborted"
    grandchild = read_pid(pidfile)
    kill_leftovers.append(grandchild)
    assert wait_dead(grandchild)


async def test_already_aborted_signal_runs_nothing(sandbox, tmp_path):
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(AbortError):
        await sandbox.exec(f"touch {tmp_path / 'ran'}", signal=signal)
    await asyncio.sleep(0.2)
    assert not (tmp_path / "ran").exists()


async def test_task_cancel_kills_group(sandbox, tmp_path, kill_leftovers):
    pidfile = tmp_path / "pid"
    task = asyncio.create_task(sandbox.exec(f"sleep 30 & echo $! > {pidfile}; wait"))
    grandchild = await asyncio.to_thread(read_pid, pidfile)
    kill_leftovers.append(grandchild)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(grandchild)


async def test_200mb_output_is_capped_with_bounded_memory(sandbox):
    reset_peak_rss()
    base = status_kb("VmRSS")
    received = 0

    def count(stream: str, chunk: str) -> None:
        nonlocal received
        received += len(chunk)

    r = await sandbox.exec("yes | head -c 200M", on_output=count)
    peak_delta_mb = (status_kb("VmHWM") - base) / 1024
    assert r.exit_code == 1
    assert r.stderr == CAP_MESSAGE
    assert r.stdout.endswith("y\n") or r.stdout.endswith("y")
    assert set(r.stdout) <= {"y", "\n"}
    assert 60_000 < len(r.stdout) < 2_000_000  # a bounded tail, not 64 MiB
    assert received > 64 * 1024 * 1024
    assert peak_delta_mb < 100, peak_delta_mb


async def test_output_below_cap_is_complete_at_the_tail(sandbox):
    r = await sandbox.exec("seq 1 300000; echo done >&2")
    assert r.exit_code == 0 and r.stderr == "done\n"
    assert r.stdout.endswith("299999\n300000\n")
    assert len(r.stdout) < 1_000_000
