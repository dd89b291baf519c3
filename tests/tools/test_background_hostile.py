"""bash_background against a hostile or careless command: what its shell leaves behind is stopped
with it, a command ignoring SIGTERM is still killed, a stream without newlines or UTF-8 stays
bounded, and ids the model forges get one sentence."""

from __future__ import annotations

import asyncio

from flue_tui.core.abort import ToolError
from flue_tui.core.jsstr import len16
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.background import KEPT_ENDED, Jobs
from tests.security.test_orphans import _tagged, _wait_for, linux_only, tag  # noqa: F401
from tests.tools.conftest import read_pid, wait_dead


@linux_only
async def test_what_the_shell_leaves_behind_ends_with_the_job(tmp_path, tag):  # noqa: F811
    # `npm run dev > log 2>&1 &` inside bash_background: the shell exits at once, its child holds
    # no pipe of ours. Before, the job read "exited" while the child ran on, out of bash_kill's
    # reach and released from the reaper, so it outlived flue (kill -9 included).
    jobs = Jobs()
    command = f"(exec -a {tag}-left sleep 600) > /dev/null 2>&1 & echo started"
    job = jobs.start(LocalSandbox(str(tmp_path)), command, "")
    assert job.task is not None
    await job.task
    assert job.state() == "exited with code 0" and job.take() == "started\n"
    assert await asyncio.to_thread(_wait_for, lambda: not _tagged(tag, named=True), 60), _tagged(tag, named=True)


@linux_only
async def test_a_command_ignoring_sigterm_is_killed(tmp_path):
    jobs = Jobs()
    job = jobs.start(LocalSandbox(str(tmp_path)), "trap '' TERM; sh -c 'echo $$ > pid; trap \"\" TERM; sleep 600'", "")
    pid = await asyncio.to_thread(read_pid, tmp_path / "pid")
    jobs.kill(job)
    assert job.task is not None
    await asyncio.wait({job.task}, timeout=60)
    assert job.state() == "exited with code 143"
    assert await asyncio.to_thread(wait_dead, pid)


async def test_a_stream_without_newlines_or_utf8_stays_bounded(tmp_path):
    jobs = Jobs()
    job = jobs.start(LocalSandbox(str(tmp_path)), "head -c 3000000 /dev/urandom | tr -d '\\n'", "")
    assert job.task is not None
    await job.task
    text = job.take()
    assert text.startswith("[earlier output dropped]\n") and len16(text) <= 60 * 1024  # bash's units
    assert len(job.recent) <= 8 * 1024 and job.exit_code == 0


async def test_forged_ids_get_one_sentence():
    jobs = Jobs()
    for forged in (None, 1, ["bg1"], {"id": "bg1"}, "bg0", "BG1", "bg1\n", "x" * 100_000):
        try:
            jobs.get(forged)
        except ToolError as err:
            assert str(err).startswith("No background command with id ")
            assert len(str(err)) < 300, len(str(err))
        else:
            raise AssertionError(forged)


async def test_a_model_looping_on_bash_background_cannot_grow_memory(tmp_path):
    # Each ended job keeps its unread output (up to 200 KB); before, every one was kept forever.
    jobs = Jobs()
    sandbox = LocalSandbox(str(tmp_path))
    for _ in range(KEPT_ENDED + 8):
        job = jobs.start(sandbox, "head -c 300000 /dev/zero | tr '\\0' x", "")
        assert job.task is not None
        await job.task
    assert len(jobs.jobs) == KEPT_ENDED and job.id in jobs.jobs and "bg1" not in jobs.jobs
    assert sum(j.unread_len for j in jobs.jobs.values()) <= KEPT_ENDED * 4 * 51200 + 300000
