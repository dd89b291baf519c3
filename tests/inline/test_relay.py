"""The `flue` entry starts the relay (model/relay.py) for inline mode and the app: the answer comes
over the relay's connection to the provider, flue's own process holds none, and the relay ends
with flue."""

from __future__ import annotations

import time
from pathlib import Path

from tests.fakellm import Turn


def _relays_of(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == pid and stat[0] != "Z" and b"flue_tui.model.relay_main" in cmdline:
            found.append(int(proc.name))
    return found


def _connections_to(port: int) -> set[str]:
    """Socket inodes of established TCP connections to 127.0.0.1:`port`."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote, state = fields[2], fields[3]
        if state == "01" and int(remote.split(":")[1], 16) == port:
            inodes.add(fields[9])
    return inodes


def _sockets_of(pid: int) -> set[str]:
    held = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = str(fd.readlink())
        except OSError:
            continue
        if target.startswith("socket:["):
            held.add(target[8:-1])
    return held


def test_inline_mode_answers_through_its_relay_and_takes_it_along_on_quit(inline, fakellm) -> None:
    fakellm.script([Turn(text="Relayed answer.")])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    flue = term.child.pid
    relays = _relays_of(flue)
    assert len(relays) == 1, "no relay beside inline mode"
    term.send("hello\r")
    term.wait_for("Relayed answer.")
    port = int(fakellm.base_url.rsplit(":", 1)[1].split("/")[0])
    provider = _connections_to(port)  # the pool keeps the connection for the next request
    assert provider & _sockets_of(relays[0]), "the relay holds no connection to the provider"
    assert not provider & _sockets_of(flue), "flue's own process talked to the provider"
    term.send("/quit\r")
    assert term.exit_code() == 0
    deadline = time.monotonic() + 60  # generous: returns once it is gone
    while not _ended(relays[0]):
        assert time.monotonic() < deadline, "the relay outlived flue"
        time.sleep(0.05)


def _ended(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True
