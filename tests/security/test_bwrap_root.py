"""bubblewrap is a boundary even when flue runs as root (CI containers, devcontainers): the box
holds no capability, so the read-only host cannot be remounted writable; it has its own PID
namespace and /proc; it dies with flue. Root-only checks skip elsewhere, and everything skips
where bwrap is missing or cannot create namespaces."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from flue_tui.sandbox.workspace import Bwrap, WorkspaceSandbox, detect
from tests.sandbox.test_workspace_bwrap import _bash

BWRAP, WHY_NOT = detect(network=False)
needs_root_bwrap = pytest.mark.skipif(
    BWRAP is None or os.geteuid() != 0,
    reason=f"needs root and a working bubblewrap ({WHY_NOT or 'not root'})")


def test_the_box_drops_capabilities_and_has_its_own_pid_namespace():
    argv = Bwrap("/usr/bin/bwrap").argv(("/ws",), "/ws", "/bin/bash", "true")
    flags = argv[:argv.index("--")]
    assert ["--cap-drop", "ALL"] == flags[flags.index("--cap-drop"):flags.index("--cap-drop") + 2]
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
    text = await _bash(sandbox, (
        "mount -o remount,rw / 2>/dev/null && echo REMOUNTED; "
        f"echo pwned > {target} 2>/dev/null && echo WROTE; "
        "command -v unshare >/dev/null && unshare -Urm sh -c 'mount -o remount,rw / && echo REMOUNTED' 2>/dev/null; "
        "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status; echo inside > made.txt; echo end"))
    assert "REMOUNTED" not in text and "WROTE" not in text
    assert not target.exists()
    assert text.count("0000000000000000") == 3  # effective, permitted and bounding sets are empty
    assert (host_dirs / "ws" / "made.txt").read_text() == "inside\n"  # the workspace stays writable


@needs_root_bwrap
async def test_root_sees_only_the_box_in_proc(host_dirs):
    sandbox = WorkspaceSandbox(str(host_dirs / "ws"), root=str(host_dirs / "ws"), bwrap=BWRAP)
    text = await _bash(sandbox, "ls /proc | grep -c '^[0-9]'; cat /proc/1/comm; "
                                f"test -e /proc/{os.getpid()}/environ && echo HOST_VISIBLE; echo end")
    count, init, *rest = text.splitlines()
    assert int(count) < 10 and init == "bwrap" and "HOST_VISIBLE" not in rest
