"""FIFOs, sockets and devices are refused by the file tools, and SIGTERM ends `flue -p` whatever a
worker thread is doing.

Before: `read` of a FIFO blocked forever in a worker thread, and then SIGTERM no longer ended
`flue -p` (asyncio and the interpreter both wait for executor threads at exit).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from flue_tui.core.abort import AbortSignal, ToolError
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.sandbox.workspace import WorkspaceSandbox
from flue_tui.tools.base import ToolContext
from flue_tui.tools.edit import EditTool
from flue_tui.tools.read import ReadTool
from flue_tui.tools.write import WriteTool
from tests.fakellm import Call, Turn

GENEROUS_S = 60  # a bound for "did not hang", never a speed assertion


def ctx() -> ToolContext:
    return ToolContext("call-1", AbortSignal())


def _sandbox(kind: str, root: Path) -> LocalSandbox:
    return LocalSandbox(str(root)) if kind == "local" else WorkspaceSandbox(str(root), root=str(root))


async def _refused(tool, args) -> str:
    with pytest.raises(ToolError) as info:
        await asyncio.wait_for(tool.execute(args, ctx()), GENEROUS_S)
    return str(info.value)


@pytest.fixture
def fifo(tmp_path: Path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    yield path
    # Should a test regress and block on the FIFO, a writer lets the stuck thread go.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


@pytest.mark.parametrize("kind", ["local", "workspace"])
async def test_fifo_is_refused_by_every_file_tool(tmp_path, fifo, kind):
    sandbox = _sandbox(kind, tmp_path)
    want = f"Not a regular file: {fifo} is a FIFO (named pipe); only regular files can be read or written."
    assert await _refused(ReadTool(sandbox), {"path": "pipe"}) == want
    assert await _refused(WriteTool(sandbox), {"path": "pipe", "content": "x"}) == want
    assert await _refused(EditTool(sandbox), {"path": "pipe", "oldText": "a", "newText": "b"}) == want
    assert Path(fifo).is_fifo()


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
async def test_devices_are_refused(tmp_path, device):
    sandbox = LocalSandbox(str(tmp_path))
    want = f"Not a regular file: {device} is a character device; only regular files can be read or written."
    assert await _refused(ReadTool(sandbox), {"path": device}) == want


async def test_device_reached_through_a_symlink_is_refused(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero")
    for kind in ("local", "workspace"):
        text = await _refused(ReadTool(_sandbox(kind, tmp_path)), {"path": "zero"})
        if kind == "local":
            assert (
                text == f"Not a regular file: {tmp_path}/zero is a character device; "
                "only regular files can be read or written."
            )
        else:  # outside the workspace before it is anything else
            assert text == "path escapes workspace boundary: zero"


@pytest.mark.parametrize("kind", ["local", "workspace"])
async def test_socket_gets_nodes_enxio(tmp_path, kind):
    path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        sandbox = _sandbox(kind, tmp_path)
        assert await _refused(ReadTool(sandbox), {"path": "s"}) == f"ENXIO: no such device or address, open '{path}'"
        assert (
            await _refused(WriteTool(sandbox), {"path": "s", "content": "x"})
            == f"ENXIO: no such device or address, open '{path}'"
        )
    finally:
        server.close()


@pytest.mark.parametrize("kind", ["local", "workspace"])
async def test_directories_and_regular_files_unchanged(tmp_path, kind):
    (tmp_path / "d").mkdir()
    (tmp_path / "f.txt").write_text("hello\n")
    sandbox = _sandbox(kind, tmp_path)
    assert await _refused(ReadTool(sandbox), {"path": "d"}) == "EISDIR: illegal operation on a directory, read"
    assert (
        await _refused(WriteTool(sandbox), {"path": "d", "content": "x"})
        == f"EISDIR: illegal operation on a directory, open '{tmp_path}/d'"
    )
    assert (await ReadTool(sandbox).execute({"path": "f.txt"}, ctx())).text == "hello\n"
    await WriteTool(sandbox).execute({"path": "f.txt", "content": "bye"}, ctx())
    assert (tmp_path / "f.txt").read_text() == "bye"


def test_cli_read_of_a_fifo_goes_back_to_the_model(fakellm, run_flue, tmp_path, fifo):
    fakellm.script([Turn(calls=[Call("read", {"path": "pipe"})]), Turn(text="it is a pipe")])
    out = run_flue("-p", "read it", "--model", "openai/fake", timeout=GENEROUS_S * 2)
    assert out.code == 0, out.stderr
    assert out.stdout == "it is a pipe\n"
    sent = fakellm.requests[1]["messages"][-1]["content"]
    assert sent == f"Not a regular file: {fifo} is a FIFO (named pipe); only regular files can be read or written."


# The real CLI with one extra tool that blocks in a worker thread forever (what a FIFO read did).
STUCK_DRIVER = r"""
import asyncio, sys, threading
import flue_tui.tools as tools
from flue_tui.core.traits import ToolTraits

class Stuck:
    name, label, traits = "stuck", "Stuck", ToolTraits(kind="read")
    description = "Blocks in a worker thread."
    parameters = {"type": "object", "properties": {}, "required": []}
    def __init__(self, sandbox):
        self.sandbox = sandbox
    async def execute(self, args, ctx):
        def block():
            print("blocked", file=sys.stderr, flush=True)
            threading.Event().wait()
        await asyncio.to_thread(block)

builtin = tools.builtin_tools
tools.builtin_tools = lambda sandbox: [*builtin(sandbox), Stuck(sandbox)]
from flue_tui.cli.flue import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigterm_ends_the_run_while_a_worker_thread_is_stuck(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(calls=[Call("stuck", {})]), Turn(text="never")])
    proc = subprocess.Popen(
        [sys.executable, "-c", STUCK_DRIVER, "-p", "go", "--model", "openai/fake", "--output-format", "json"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=flue_env,
        cwd=tmp_path,
        text=True,
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line == "blocked\n":
                break
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=GENEROUS_S)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 143, err
    result = json.loads(out)
    assert result["type"] == "result" and result["is_error"] is True and result["result"] == "Aborted by SIGTERM."
    assert "Traceback" not in err


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_refuses_a_fifo_or_device_as_its_path(tmp_path, fifo, use_rg):
    from flue_tui.tools.grep import GrepTool

    tool = GrepTool(LocalSandbox(str(tmp_path)), use_rg=use_rg)
    assert (
        await _refused(tool, {"pattern": "x", "path": "pipe"})
        == f"Not a regular file: {fifo} is a FIFO (named pipe); only regular files can be read or written."
    )
    assert (
        await _refused(tool, {"pattern": "x", "path": "/dev/zero"})
        == "Not a regular file: /dev/zero is a character device; only regular files can be read or written."
    )
    (tmp_path / "a.txt").write_text("x\n")  # a folder holding a FIFO is searched as before
    assert (await tool.execute({"pattern": "x"}, ctx())).text == "./a.txt:1:x"


def _no_hang(fn, fifos: list[Path]):
    """Run fn in a thread; if it blocks on a FIFO, free it (a writer opens) and fail."""
    import threading

    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(value=fn()), daemon=True)
    thread.start()
    thread.join(GENEROUS_S)
    if thread.is_alive():
        for path in fifos:
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join(GENEROUS_S)
        raise AssertionError("blocked on a FIFO")
    return box.get("value")


def test_repository_fifos_do_not_hang_start_up(tmp_path):
    from flue_tui.config.errors import ConfigError
    from flue_tui.config.files import read_layer
    from flue_tui.context.agents_md import discover_workspace
    from flue_tui.context.subagents import discover_roster

    os.mkfifo(tmp_path / "AGENTS.md")
    (tmp_path / "CLAUDE.md").write_text("be careful\n")
    (tmp_path / ".agents" / "agents").mkdir(parents=True)
    os.mkfifo(tmp_path / ".agents" / "agents" / "spy.md")
    (tmp_path / ".flue").mkdir()
    os.mkfifo(tmp_path / ".flue" / "config.toml")
    fifos = [tmp_path / "AGENTS.md", tmp_path / ".agents" / "agents" / "spy.md", tmp_path / ".flue" / "config.toml"]

    assert _no_hang(lambda: discover_workspace(str(tmp_path)), fifos).instructions == "be careful"
    roster = _no_hang(lambda: discover_roster(str(tmp_path)), fifos)
    assert roster.warnings == ['[flue] Skipping invalid agent "spy.md": a FIFO (named pipe), not a regular file']

    def layer() -> str:
        try:
            read_layer(tmp_path / ".flue" / "config.toml")
        except ConfigError as exc:
            return str(exc)
        return "read"

    assert (
        _no_hang(layer, fifos)
        == f"Skipped {tmp_path}/.flue/config.toml: flue cannot read it (a FIFO (named pipe), not a regular file)."
    )


@pytest.mark.parametrize("place", ["sub/.gitignore", ".ignore", ".rgignore", "../.gitignore"])
async def test_grep_stops_at_an_ignore_file_that_is_a_fifo(tmp_path, place):
    """Issue 42, attacked: rg opens each folder's ignore files (and those above) with a blocking
    open, so a cloned repository's FIFO `.ignore` held every grep call for ever. Now a search that
    runs long has its folders looked through, and one found stops it with a sentence naming it."""
    from flue_tui.tools.grep import GrepTool

    ws = tmp_path / "outer" / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "a.txt").write_text("x\n")
    os.mkfifo(ws / place)
    tool = GrepTool(LocalSandbox(str(ws)))
    text = await _refused(tool, {"pattern": "x"})
    shown = os.path.normpath(ws / place) if place.startswith("..") else place
    assert text == f"Cannot search .: {shown} is not a regular file, and the search would wait for ever to read it."
