"""Keeps flue's own process out of the reach of the commands it runs, and takes those commands
along when flue dies, even by SIGKILL.

Provider keys live in flue's environment and memory; commands run as the same user, so without
this any of them could read `/proc/<flue>/environ` (or `mem`, `task/*/environ`, `fd/`). The kernel
guards all of those with one check (ptrace access), so:

* `harden()` first scrubs flue's original environment block (what `/proc/<flue>/environ` shows,
  whoever reads it, root included): every variable outside the command allowlist moves to a heap
  copy that libc and Python keep using, and its bytes in the block are zeroed. Then it marks flue
  non-dumpable (`PR_SET_DUMPABLE 0`), so `mem`, `fd/` and the rest need CAP_SYS_PTRACE. When flue
  runs with capabilities (root), it also drops CAP_SYS_PTRACE from its bounding and inheritable
  sets, so no command, nor anything it executes, can ever hold it. Root keeps other ways in
  (kernel settings, services it can ask); docs/permissions.md says so plainly.
* `child_setup` runs in each spawned shell before exec: `PR_SET_PDEATHSIG SIGKILL`, so the shell
  dies with the thread that spawned it (the event loop's, which lives as long as flue), and it
  names its own process group to the reaper, so no moment after the fork is left uncovered.
* `reaper` is one small helper process per flue process (proctree.py run as a script), spawned
  with an empty environment. flue tells it which process groups are running; when flue's end of
  the channel closes (flue was killed), it SIGKILLs those groups, which also takes the shell's own
  children, then every process carrying flue's mark (proctree), which takes what left the groups
  (`setsid`, daemons, re-parented children). A normal exit does the same from flue itself.

All of it is Linux-only except the reaper, which works on any POSIX system.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading

from flue_tui.sandbox import proctree

# The variables a spawned command may see; everything else (provider keys above all) is dropped
# from its environment and zeroed in our own environ block.
ENV_ALLOWLIST = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "HOSTNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TERM",
    "TMPDIR",
    "TMP",
    "TEMP",
)

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CAP_SYS_PTRACE = 19
_CAP_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:  # the running program's own symbols, libc's included (find_library would spawn ldconfig)
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()
_prctl = None
if _LIBC is not None:
    _prctl = _LIBC.prctl
    _prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    _prctl.restype = ctypes.c_int

_READY_TIMEOUT_S = 10.0
_hardened = False
_harden_lock = threading.Lock()


def harden() -> None:
    """Make flue's /proc entries unreadable to its commands; idempotent, silent where unsupported.
    The capability drop holds for the calling thread and the threads it starts afterwards: the
    `flue` entry calls this on the main thread before any other starts."""
    global _hardened
    with _harden_lock:
        if _hardened or _prctl is None:
            return
        _hardened = True
        _scrub_environment_block()
        _prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        _drop_ptrace_capability()


def _environment_block() -> tuple[int, int] | None:
    """Start and end address of this process's original environment strings (Linux >= 3.5)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[47]), int(fields[48])  # stat fields 50 and 51 (env_start, env_end)
    except (OSError, IndexError, ValueError):
        return None
    return (start, end) if 0 < start < end else None


def _scrub_environment_block() -> None:
    """Zero every entry of the original environment block that commands may not see. The kernel
    serves `/proc/PID/environ` (and ps's `e`) from this block, and some kernels serve it to
    same-user readers even when the process is not dumpable. Variables still set are first copied
    with setenv, so C code calling getenv keeps working; Python reads its own copy (os.environ)."""
    span = _environment_block()
    if span is None:
        return
    start, end = span
    block = ctypes.string_at(start, end - start)
    keep = {name.encode() for name in ENV_ALLOWLIST}
    offset = 0
    for entry in block.split(b"\0"):
        name = entry.split(b"=", 1)[0]
        if entry and name not in keep:
            current = os.environb.get(name) if name else None
            if current is not None:
                try:
                    os.putenv(name, current)  # a heap copy replaces libc's pointer into the block
                except (OSError, ValueError):
                    pass
            ctypes.memset(start + offset, 0, len(entry))
        offset += len(entry) + 1


def _drop_ptrace_capability() -> None:
    """Remove CAP_SYS_PTRACE from the bounding, ambient, inheritable, permitted and effective sets.
    Only root (or a process given CAP_SETPCAP) may shrink the bounding set; for anyone else the
    capability is absent already and the calls fail harmlessly."""
    assert _LIBC is not None and _prctl is not None
    _prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0)
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()
    if _LIBC.capget(ctypes.byref(header), data) != 0:
        return
    mask = ~(1 << CAP_SYS_PTRACE) & 0xFFFFFFFF  # bit 19 lives in the first of the two words
    if not (data[0].effective | data[0].permitted | data[0].inheritable) & ~mask:
        return
    data[0].effective &= mask
    data[0].permitted &= mask
    data[0].inheritable &= mask
    _LIBC.capset(ctypes.byref(header), data)


def ptrace_capability_dropped() -> bool:
    """True when this process can no longer hold CAP_SYS_PTRACE (for tests and `flue doctor`)."""
    try:
        with open("/proc/self/status") as f:
            bounding = next(line for line in f if line.startswith("CapBnd:"))
    except (OSError, StopIteration):
        return False
    return not int(bounding.split()[1], 16) & (1 << CAP_SYS_PTRACE)


def child_setup(parent_pid: int, reaper_fd: int | None = None) -> None:
    """preexec_fn of every command shell: die with flue, and hand the reaper this new process
    group (its pid: the shell leads its own session) before anything else can run in it. Runs in
    the forked child, so it only makes system calls and never takes a lock."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:  # flue died between fork and prctl: nobody would signal us
            os.kill(os.getpid(), signal.SIGKILL)
    if reaper_fd is not None:
        channel = socket.socket(fileno=reaper_fd)
        try:  # one small send on a stream socket: never interleaved with another writer's line
            channel.send(b"+%d\n" % os.getpid(), socket.MSG_NOSIGNAL)
        except OSError:
            pass
        finally:
            channel.detach()  # the caller's descriptor: exec closes it


class Reaper:
    """flue's side of the reaper: spawned on first use, respawned (and told every running group
    again) if something killed it. If it cannot start at all, commands still have
    PR_SET_PDEATHSIG; only their children may then outlive a killed flue.

    Its channel is a socket pair, not a pipe: a pipe can be opened again through
    `/proc/<reaper>/fd/0` by any process of the user, which could then feed it groups to kill,
    make it forget ours, or hold the pipe open so flue's death never reaches it; a socket cannot
    be opened that way. The reaper makes itself non-dumpable before it says it is ready, and no
    command is spawned before it did, so none can reach it through ptrace either. A command can
    still stop or kill it (same user): flue's own exit therefore does the reaper's work itself,
    and only a kill -9 of flue relies on it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._channel: socket.socket | None = None
        self._groups: set[int] = set()
        self._broken = False
        self._exit_registered = False

    def watch(self, pgid: int) -> None:
        with self._lock:
            self._groups.add(pgid)
            self._send(b"+%d\n" % pgid)

    def release(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)
            self._send(b"-%d\n" % pgid)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def spawn_fd(self) -> int | None:
        """A private descriptor of the reaper's channel for a command about to be spawned: its
        `child_setup` registers the command's group through it before exec, so a flue killed at
        any moment after the fork (before `watch`) still takes the command along. A duplicate, so
        a respawned reaper can never leave the child writing into a recycled descriptor; the
        caller closes it once the spawn returned. None when there is no reaper."""
        with self._lock:
            if not self._running():
                return None
            assert self._channel is not None
            try:
                return os.dup(self._channel.fileno())  # not inheritable: gone at exec
            except (OSError, ValueError):
                return None

    def end(self) -> None:
        """flue is exiting: kill what it started itself (the reaper may have been stopped by one
        of its commands), then the reaper, which has nothing left to do."""
        with self._lock:
            self._broken = True  # nothing respawns it from here on
            groups, proc, channel = list(self._groups), self._proc, self._channel
            self._proc = self._channel = None
        for pgid in groups:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass
        proctree.kill_marked(proctree.RUN)
        if proc is not None:
            proc.kill()  # SIGKILL reaches a stopped process too
        if channel is not None:
            channel.close()

    def _send(self, line: bytes) -> None:
        for _attempt in range(2):
            if not self._running():
                return
            assert self._channel is not None
            try:
                self._channel.sendall(line, socket.MSG_NOSIGNAL)
                return
            except OSError:  # it died under us, or was stopped until its channel filled up
                if self._proc is not None:
                    self._proc.kill()
                self._proc = None  # start another, which is told everything

    def _running(self) -> bool:
        """Start the reaper if none runs (and tell it every watched group); False if it cannot."""
        if self._broken:
            return False
        if self._proc is not None and self._proc.poll() is None:
            return True
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        try:
            ours, theirs = socket.socketpair()
            with theirs:
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", proctree.__file__, proctree.RUN],
                    stdin=theirs.fileno(),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={},
                    start_new_session=True,
                    close_fds=True,
                )
            self._channel = ours
            # Nothing may run before it is out of ptrace's reach; a reaper this slow is still
            # used, and only the moment before its own prctl is left open.
            ours.settimeout(_READY_TIMEOUT_S)
            try:
                ours.recv(1)
            except TimeoutError:
                pass
            ours.setblocking(False)  # a stopped reaper must never block flue: it is replaced
            if self._groups:
                ours.sendall(b"".join(b"+%d\n" % pgid for pgid in self._groups), socket.MSG_NOSIGNAL)
        except (OSError, ValueError, subprocess.SubprocessError):
            self._broken = True  # cannot start one: keep working without it
            return False
        if not self._exit_registered:
            self._exit_registered = True
            atexit.register(self.end)  # exit_now runs the atexit handlers too
        return True


reaper = Reaper()
