"""bash inside bubblewrap: the workspace is writable, the rest of the filesystem is not, /tmp is
private and the network is off unless allowed. Skipped where bwrap is missing or cannot run."""

from __future__ import annotations

import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest

from flue_tui.config.settings import Settings
from flue_tui.core.abort import AbortSignal
from flue_tui.sandbox.workspace import NO_BWRAP_NOTICE, WorkspaceSandbox, detect, make_sandbox
from flue_tui.tools.base import ToolContext
from flue_tui.tools.bash import BashTool

BWRAP, WHY_NOT = detect(network=False)
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unusable here: {WHY_NOT}")


@pytest.fixture
def off_tmp():
    """A workspace and an outside directory under /var/tmp: /tmp itself is private inside the box,
    so only a directory elsewhere shows that the host filesystem is read-only."""
    base = Path(tempfile.mkdtemp(prefix="flue-bwrap-", dir="/var/tmp" if Path("/var/tmp").is_dir() else None))
    (base / "ws").mkdir()
    (base / "outside").mkdir()
    yield base
    shutil.rmtree(base, ignore_errors=True)


async def _bash(sandbox, command: str, timeout: float | None = None) -> str:
    args = {"command": command} if timeout is None else {"command": command, "timeout": timeout}
    result = await BashTool(sandbox).execute(args, ToolContext(call_id="c", signal=AbortSignal()))
    return result.text


@needs_bwrap
async def test_writes_inside_succeed_and_outside_fail(off_tmp):
    sandbox = WorkspaceSandbox(str(off_tmp / "ws"), root=str(off_tmp / "ws"), bwrap=BWRAP)
    inside = await _bash(sandbox, "echo in > made.txt && cat made.txt")
    assert inside == "in"
    outside = await _bash(sandbox, f"echo out > {off_tmp / 'outside' / 'x.txt'}")
    assert "Read-only file system" in outside and outside.endswith("Command exited with code 1")
    assert (off_tmp / "ws" / "made.txt").read_text() == "in\n"
    assert not (off_tmp / "outside" / "x.txt").exists()


@needs_bwrap
async def test_tmp_is_private(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    sandbox = WorkspaceSandbox(str(ws), root=str(ws), bwrap=BWRAP)
    text = await _bash(sandbox, f"echo x > {tmp_path / 'sibling.txt'} && echo x > /tmp/flue-private && echo ok")
    assert text == "ok"  # writable, but only the box's own /tmp
    assert not (tmp_path / "sibling.txt").exists() and not Path("/tmp/flue-private").exists()


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                server.accept()[0].close()
            except OSError:  # the timeout, so the loop can see `done`
                pass

    accepting = threading.Thread(target=accept, daemon=True)
    accepting.start()
    yield server.getsockname()[1]
    done.set()
    accepting.join(5)
    server.close()


@needs_bwrap
@pytest.mark.parametrize("allow", [False, True])
async def test_network_is_off_unless_allowed(tmp_path, listener, allow):
    bwrap, why = detect(network=allow)
    if bwrap is None:
        pytest.skip(f"bubblewrap unusable with network={allow}: {why}")
    sandbox = WorkspaceSandbox(str(tmp_path), root=str(tmp_path), bwrap=bwrap)
    # bash's /dev/tcp, not a Python probe: the box's private /tmp hides a checkout (and its venv)
    # that lives under /tmp, and a probe that cannot start would pass the "network off" case falsely.
    text = await _bash(
        sandbox, f"(exec 3<>/dev/tcp/127.0.0.1/{listener}) 2>/dev/null && echo connected || echo refused"
    )
    assert text == ("connected" if allow else "refused"), text


@needs_bwrap
async def test_timeouts_still_kill_the_boxed_command(tmp_path):
    sandbox = WorkspaceSandbox(str(tmp_path), root=str(tmp_path), bwrap=BWRAP)
    text = await _bash(sandbox, "sleep 30", timeout=0.5)
    assert text == "[flue] Command timed out after 0.5 seconds.\n\nCommand exited with code 124"


def test_without_bwrap_one_notice_says_only_the_checks_apply(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    settings = Settings(model="openai/fake", cwd=str(tmp_path), sandbox="workspace")
    notices: list[str] = []
    first = make_sandbox(settings, str(tmp_path), notices)
    make_sandbox(settings, str(tmp_path), notices)
    assert isinstance(first, WorkspaceSandbox) and first.bwrap is None
    assert notices == [NO_BWRAP_NOTICE.format(reason="bubblewrap (bwrap) is not installed")]
    assert notices[0] == (
        "--sandbox workspace: bubblewrap (bwrap) is not installed, so bash is not isolated; only "
        "the path and command checks apply. (On Debian/Ubuntu: apt-get install bubblewrap.)"
    )


def test_local_stays_flue_behaviour(tmp_path):
    from flue_tui.sandbox.local import LocalSandbox

    sandbox = make_sandbox(Settings(model="openai/fake", cwd=str(tmp_path)), str(tmp_path), [])
    assert type(sandbox) is LocalSandbox and sandbox.resolve_path("/etc/passwd") == "/etc/passwd"
