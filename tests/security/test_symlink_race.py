"""`--sandbox workspace` file tools cannot be sent outside by a symlink swapped after the check.

Before: a thread flipping `d` between a workspace folder and an outside one while the model wrote
`d/...` got writes outside (the tools checked the path, then opened it by name). Now the open
walks from a held directory descriptor with O_NOFOLLOW and refuses whatever lies outside.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flue_tui.core import files
from flue_tui.core.abort import AbortSignal, ToolError
from flue_tui.sandbox.workspace import WorkspaceEscape, WorkspaceSandbox
from flue_tui.tools.base import ToolContext
from flue_tui.tools.edit import EditTool
from flue_tui.tools.read import ReadTool
from flue_tui.tools.write import WriteTool

TRIES = 1500  # per tool; the old code let 4 of 1500 writes out
MAX_TRIES = 20_000  # on a loaded machine, keep trying (bounded) until the race has really run


def ctx() -> ToolContext:
    return ToolContext("call-1", AbortSignal())


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    os.symlink("sub", ws / "d")
    return ws, outside


# A separate process, like the attacker of the report: a thread would share our GIL and rarely run
# inside the few microseconds between the check and the open.
FLIP = """
import os, sys
ws, targets = sys.argv[1], sys.argv[2:]
tmp, i = os.path.join(ws, ".d-next"), 0
print("ready", flush=True)
while True:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.symlink(targets[i % 2], tmp)
    os.replace(tmp, os.path.join(ws, "d"))
    i += 1
"""


class Flipper:
    """Atomically points ws/d at ws/sub, then at the outside folder, again and again."""

    def __init__(self, ws: Path, outside: Path) -> None:
        self.ws, self.outside = ws, outside

    def __enter__(self) -> Flipper:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", FLIP, str(self.ws), "sub", str(self.outside)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == "ready\n"
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait(30)
        self.proc.stdout.close()


async def test_racing_writes_never_land_outside(layout):
    ws, outside = layout
    tool = WriteTool(WorkspaceSandbox(str(ws), root=str(ws)))
    written = refused = 0
    with Flipper(ws, outside):
        for i in range(MAX_TRIES):
            if i >= TRIES and refused and written:
                break
            try:
                await tool.execute({"path": f"d/f{i}.txt", "content": "x"}, ctx())
                written += 1
            except ToolError as err:
                assert str(err) == f"path escapes workspace boundary: d/f{i}.txt"
                refused += 1
    assert refused > 0 and written > 0  # the race really ran
    assert os.listdir(outside) == []  # 0 escapes
    assert len(os.listdir(ws / "sub")) == written


async def test_racing_reads_and_edits_never_see_outside(layout):
    ws, outside = layout
    (outside / "secret.txt").write_text("outside secret\n")
    (ws / "sub" / "secret.txt").write_text("inside\n")
    sandbox = WorkspaceSandbox(str(ws), root=str(ws))
    read, edit = ReadTool(sandbox), EditTool(sandbox)
    with Flipper(ws, outside):
        for _ in range(TRIES):
            try:
                assert "outside" not in (await read.execute({"path": "d/secret.txt"}, ctx())).text
            except WorkspaceEscape:
                pass
            try:
                await edit.execute({"path": "d/secret.txt", "oldText": "secret", "newText": "pwned"}, ctx())
            except ToolError:
                pass  # refused, or no "secret" in the inside file
    assert (outside / "secret.txt").read_text() == "outside secret\n"


def test_walk_refuses_a_link_out_even_without_the_check(layout):
    ws, outside = layout
    os.replace(_link(ws, str(outside)), ws / "d")
    (outside / "secret.txt").write_text("s")
    for write in (False, True):
        with pytest.raises(files.Escape):
            files.open_beneath(str(ws), f"{ws}/d/secret.txt", write=write)
    with pytest.raises(files.Escape):
        files.open_beneath(str(ws), f"{ws}/d/new/x.txt", write=True, parents=True)
    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_walk_follows_links_that_stay_inside(layout):
    ws, _ = layout
    (ws / "sub" / "a.txt").write_text("a")
    os.symlink(f"{ws}/sub/a.txt", ws / "abs-link")
    os.symlink("sub/../sub/./a.txt", ws / "rel-link")
    os.symlink("sub/made.txt", ws / "dangling")
    for name in ("d/a.txt", "abs-link", "rel-link"):
        fd = files.open_beneath(str(ws), f"{ws}/{name}")
        with os.fdopen(fd, "rb") as f:
            assert f.read() == b"a"
    with os.fdopen(files.open_beneath(str(ws), f"{ws}/dangling", write=True), "wb") as f:
        f.write(b"made")
    assert (ws / "sub" / "made.txt").read_text() == "made"
    with os.fdopen(files.open_beneath(str(ws), f"{ws}/d/x/y/z.txt", write=True, parents=True), "wb") as f:
        f.write(b"deep")
    assert (ws / "sub" / "x" / "y" / "z.txt").read_text() == "deep"


def test_walk_loop_is_eloop(layout):
    ws, _ = layout
    os.symlink("loop-b", ws / "loop-a")
    os.symlink("loop-a", ws / "loop-b")
    with pytest.raises(OSError) as info:
        files.open_beneath(str(ws), f"{ws}/loop-a")
    assert info.value.errno == errno.ELOOP


def _link(ws: Path, target: str) -> Path:
    tmp = ws / ".tmp-link"
    os.symlink(target, tmp)
    return tmp
