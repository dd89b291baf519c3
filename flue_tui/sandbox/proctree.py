"""Finds what flue started after it left the process group flue knows, and the reaper's program.

A process group is only what stays in it: `setsid`, a daemon's double fork or a child re-parented
after its parent exited leaves it, and on Linux a re-parented child has no link to flue left. So
every process flue starts (command shells, background commands, hooks, stdio MCP servers) gets
one more environment variable, `FLUE_PROCESS_TREE=RUN.N`: RUN is this flue process's random
token, N counts its spawns. Children inherit their parent's environment whatever they do to
their session, group or parent, so "whose environment carries our token" is the tree flue
started. `kill_marked` signals those processes: flue for one spawn (a hook's timeout, a
background command's end), the reaper for the whole run once flue is gone.

Only processes this user may inspect are found: one that clears its environment (`env -i`), makes
itself non-dumpable or changes user is not; docs/permissions.md says what holds where. Linux
only (it reads /proc); elsewhere `kill_marked` finds nothing.

This module imports only the standard library: the reaper runs it as a script (`python -I -S
proctree.py RUN`), with an empty environment and none of flue's code.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys

NAME = "FLUE_PROCESS_TREE"
RUN = os.urandom(8).hex()  # not `secrets`: the reaper runs this file and should start light
_spawns = itertools.count(1)
_SWEEPS = 50  # SIGKILL passes at most: each finds what forked while the last one ran


def new_mark() -> str:
    """The mark of one spawn: its processes are those `kill_marked(mark)` finds."""
    return f"{RUN}.{next(_spawns)}"


def _carries(pid: int, exact: bytes, prefix: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            block = f.read()
    except OSError:  # gone, a zombie, another user's, or not dumpable
        return False
    return any(entry == exact or entry.startswith(prefix) for entry in block.split(b"\0"))


def _signal(pid: int, sig: int, exact: bytes, prefix: bytes) -> bool:
    """Signal `pid` if it carries the mark. The pidfd holds the process while its environment is
    read, so a pid reused in between is never signalled."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return False
    try:
        if not _carries(pid, exact, prefix):
            return False
        signal.pidfd_send_signal(pidfd, sig)
        return True
    except OSError:
        return False
    finally:
        os.close(pidfd)


def signal_marked(mark: str, sig: int) -> int:
    """Send `sig` once to every process marked `mark` or below it (RUN covers RUN.N); how many."""
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
        return 0
    exact = f"{NAME}={mark}".encode()
    prefix = exact + b"."
    me = os.getpid()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return 0
    # The cheap read first: the pidfd is opened only for the few that carry the mark.
    return sum(1 for pid in pids if pid != me and _carries(pid, exact, prefix) and _signal(pid, sig, exact, prefix))


def kill_marked(mark: str) -> None:
    """SIGKILL everything marked `mark`, again until a pass finds nothing (a process may fork
    while a pass runs; a killed one reads as unmarked once it is a zombie)."""
    for _ in range(_SWEEPS):
        if not signal_marked(mark, signal.SIGKILL):
            return


def _undumpable() -> None:
    """PR_SET_DUMPABLE 0: no process of the user may ptrace the reaper, take its descriptors
    (pidfd_getfd) or read its memory."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # only the reaper needs it

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        pass


def _reap(run: str) -> None:
    """The reaper (procguard.Reaper): flue writes "+PGID"/"-PGID" lines for the process groups
    running; at end of file (flue was killed) it kills those groups, then everything
    that carries flue's token. Terminal signals are ignored (it also has its own session), so only
    flue going away makes it act."""
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE):
        signal.signal(s, signal.SIG_IGN)
    _undumpable()
    try:
        os.write(0, b"!")  # ready: flue spawns nothing before this (stdin is a socket pair)
    except OSError:
        pass
    groups: set[int] = set()
    for line in sys.stdin.buffer:
        sign, pgid = line[:1], line[1:].strip()
        if pgid.isdigit() and int(pgid) > 1:
            (groups.add if sign == b"+" else groups.discard)(int(pgid))
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    if run:
        kill_marked(run)


if __name__ == "__main__":
    _reap(sys.argv[1] if len(sys.argv) > 1 else "")
