"""The per-file mutation lock: FIFO per resolved path, parallel across files, abort points."""

from __future__ import annotations

import asyncio
import time

import pytest

from flue_tui.core.abort import AbortError, AbortSignal
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.base import ToolContext
from flue_tui.tools.edit import EditTool
from flue_tui.tools.locks import with_file_lock
from flue_tui.tools.write import WriteTool


async def test_same_file_edits_serialise_in_dispatch_order(tmp_path):
    (tmp_path / "f.txt").write_text("x\n")
    sb = LocalSandbox(str(tmp_path))
    edit = EditTool(sb)
    # Each edit needs its predecessor's result: both applied only if they run in order.
    calls = [
        edit.execute({"path": "f.txt", "oldText": "x", "newText": "y"}, ToolContext("1", AbortSignal())),
        edit.execute(
            {"path": str(tmp_path / "f.txt"), "oldText": "y", "newText": "z"}, ToolContext("2", AbortSignal())
        ),
    ]
    results = await asyncio.gather(*calls)
    assert [r.text for r in results] == ["Successfully edited f.txt", f"Successfully edited {tmp_path}/f.txt"]
    assert (tmp_path / "f.txt").read_text() == "z\n"


async def test_many_concurrent_edits_all_land(tmp_path):
    (tmp_path / "f.txt").write_text("".join(f"<{i}>\n" for i in range(30)))
    sb = LocalSandbox(str(tmp_path))
    edit = EditTool(sb)
    await asyncio.gather(
        *(
            edit.execute(
                {"path": "f.txt", "oldText": f"<{i}>", "newText": f"[{i}]"}, ToolContext(str(i), AbortSignal())
            )
            for i in range(30)
        )
    )
    assert (tmp_path / "f.txt").read_text() == "".join(f"[{i}]\n" for i in range(30))


async def test_same_path_is_fifo_and_different_paths_run_in_parallel(tmp_path):
    sb = LocalSandbox(str(tmp_path))
    log: list[str] = []

    def op(name: str):
        async def run() -> str:
            log.append(f"start {name}")
            await asyncio.sleep(0.3)
            log.append(f"end {name}")
            return name

        return run

    t0 = time.monotonic()
    await asyncio.gather(
        with_file_lock(sb, "a.txt", op("a1")),
        with_file_lock(sb, f"{tmp_path}/a.txt", op("a2")),  # same resolved path
        with_file_lock(sb, "b.txt", op("b1")),
    )
    elapsed = time.monotonic() - t0
    assert log.index("end a1") < log.index("start a2")
    assert log.index("start b1") < log.index("end a1")  # b ran alongside a1
    assert elapsed > 0.55  # a1 and a2 ran one after the other (no upper bound: a loaded box is slow)


async def test_separate_sandboxes_do_not_share_locks(tmp_path):
    order: list[str] = []

    async def slow() -> None:
        order.append("s")
        await asyncio.sleep(0.2)
        order.append("e")

    await asyncio.gather(
        with_file_lock(LocalSandbox(str(tmp_path)), "a", slow),
        with_file_lock(LocalSandbox(str(tmp_path)), "a", slow),
    )
    assert order == ["s", "s", "e", "e"]


async def test_abort_while_queued_is_checked_after_acquiring(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    sb = LocalSandbox(str(tmp_path))
    release = asyncio.Event()

    async def holder() -> None:
        await release.wait()

    first = asyncio.create_task(with_file_lock(sb, "f.txt", holder))
    signal = AbortSignal()
    second = asyncio.create_task(WriteTool(sb).execute({"path": "f.txt", "content": "new"}, ToolContext("2", signal)))
    await asyncio.sleep(0.05)
    signal.abort()
    await asyncio.sleep(0.05)
    assert not second.done()  # still queued: abort is observed only once the lock is ours
    release.set()
    await first
    with pytest.raises(AbortError) as exc:
        await second
    assert str(exc.value) == "Operation aborted"
    assert (tmp_path / "f.txt").read_text() == "x"


async def test_cancelled_waiter_keeps_the_queue_ordered(tmp_path):
    sb = LocalSandbox(str(tmp_path))
    log: list[str] = []
    gate = asyncio.Event()

    async def first() -> None:
        await gate.wait()
        log.append("first")

    async def third() -> None:
        log.append("third")

    t1 = asyncio.create_task(with_file_lock(sb, "p", first))
    t2 = asyncio.create_task(with_file_lock(sb, "p", third))  # will be cancelled while queued
    t3 = asyncio.create_task(with_file_lock(sb, "p", third))
    await asyncio.sleep(0.01)
    t2.cancel()
    await asyncio.sleep(0.05)
    assert log == []  # t3 still waits for t1
    gate.set()
    await asyncio.gather(t1, t3)
    assert log == ["first", "third"]
