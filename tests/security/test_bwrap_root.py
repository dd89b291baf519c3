"""bubblewrap is a boundary even when flue runs as root (CI containers, devcontainers): the box
holds no capability, so the read-only host cannot be remounted writable; it has its own PID
namespace and /proc; it dies with flue. Root-only checks skip elsewhere, and everything skips
where bwrap is missing or cannot create namespaces."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from flue_tui.sandbox.workspace import Bwrap, WorkspaceSandbox, detect
from tests.sandbox.test_workspace_bwrap import _bash

BWRAP, WHY_NOT = detect(network=False)
needs_root_bwrap = pytest.mark.skipif(
    BWRAP is None or os.geteuid() != 0, reason=f"needs root and a working bubblewrap ({WHY_NOT or 'not root'})"
)


def test_the_box_drops_capabilities_and_has_its_own_pid_namespace():
    argv = Bwrap("/usr/bin/bwrap").argv(("/ws",), "/ws", "/bin/bash", "true")
    flags = argv[: argv.index("--")]
    assert flags[flags.index("--cap-drop") : flags.index("--cap-drop") + 2] == ["--cap-drop", "ALL"]
    for flag in ("--unshare-pid", "--unshare-user-try", "--die-with-parent", "--unshare-net"):
        assert flag in flags
    # /proc is mounted after the PID namespace exists, so it is the box's own.
    assert flags.index("--proc") > flags.index("--unshare-pid")


@pytest.fixture
def host_dirs():
    """A workspace and an outside directory on the host's own filesystem (/tmp is private in the box)."""
    base = Path(tempfile.mkdtemp(prefix="flue-root-", dir="/var/tmp" if Path("/var/tmp").is_dir() else None))
    (base / "ws").mkdir()
    (base / "outside").mkdir()
    yield base
    shutil.rmtree(base, ignore_errors=True)


@needs_root_bwrap
async def test_root_cannot_remount_or_write_outside(host_dirs):
    sandbox = WorkspaceSandbox(str(host_dirs / "ws"), root=str(host_dirs / "ws"), bwrap=BWRAP)
    target = host_dirs / "outside" / "pwned"
    text = await _bash(
        sandbox,
        (
            "mount -o remount,rw / 2>/dev/null && echo REMOUNTED; "
            f"echo pwned > {target} 2>/dev/null && echo WROTE; "
            "command -v unshare >/dev/null && unshare -Urm sh -c 'mount -o remount,rw / && echo REMOUNTED' 2>/dev/null; "
            "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status; echo inside > made.txt; echo end"
        ),
    )
    assert "REMOUNTED" not in text and "WROTE" not in text
    assert not target.exists()
    assert text.count("0000000000000000") == 3  # effective, permitted and bounding sets are empty
    assert (host_dirs / "ws" / "made.txt").read_text() == "inside\n"  # the workspace stays writable


@needs_root_bwrap
async def test_root_sees_only_the_box_in_proc(host_dirs):
    sandbox = WorkspaceSandbox(str(host_dirs / "ws"), root=str(host_dirs / "ws"), bwrap=BWRAP)
    text = await _bash(
        sandbox,
        "ls /proc | grep -c '^[0-9]'; cat /proc/1/comm; "
        f"test -e /proc/{os.getpid()}/environ && echo HOST_VISIBLE; echo end",
    )
    count, init, *rest = text.splitlines()
    assert int(count) < 10 and init == "bwrap" and "HOST_VISIBLE" not in rest


@pytest.fixture
def host_socket():
    """A listening unix socket in the host's /run, where services keep theirs (root only)."""
    if not os.access("/run", os.W_OK):
        pytest.skip("/run is not writable here")
    path = f"/run/flue-test-{os.getpid()}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    yield path
    server.close()
    os.unlink(path)


@pytest.mark.skipif(BWRAP is None, reason=f"bubblewrap unusable here: {WHY_NOT}")
async def test_host_service_sockets_are_out_of_reach(host_dirs, host_socket):
    sandbox = WorkspaceSandbox(str(host_dirs / "ws"), root=str(host_dirs / "ws"), bwrap=BWRAP)
    text = await _bash(
        sandbox, f"test -S {host_socket} && echo REACHABLE; test -r /etc/resolv.conf && echo DNS; echo end"
    )
    assert "REACHABLE" not in text
    assert ("DNS" in text) == os.access("/etc/resolv.conf", os.R_OK)  # name resolution still configured
