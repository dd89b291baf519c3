"""The `flue` entry starts the relay (model/relay.py) for inline mode and the app: the answer comes
over the relay's connection to the provider, flue's own process holds none, and the relay ends
with flue."""

from __future__ import annotations

import os
import signal
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


def _provider_connections(fakellm: object) -> set[str]:
    port = int(str(fakellm.base_url).rsplit(":", 1)[1].split("/")[0])  # pyright: ignore[reportAttributeAccessIssue]
    return _connections_to(port)


def _ended(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _eventually(check, what: str, seconds: float = 60.0) -> None:  # generous: returns once true
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def test_inline_mode_answers_through_its_relay_and_takes_it_along_on_quit(inline, fakellm) -> None:
    fakellm.script([Turn(text="Relayed answer.")])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    relays = _relays_of(term.child.pid)
    assert len(relays) == 1, "no relay beside inline mode"
    term.send("hello\r")
    term.wait_for("Relayed answer.")
    term.send("/quit\r")
    assert term.exit_code() == 0
    _eventually(lambda: _ended(relays[0]), "the relay gone with flue")


def test_the_provider_connection_is_the_relays_and_flue_carries_on_without_it(inline, fakellm) -> None:
    """Who holds the connection, seen without reading either process's fd table (both are
    non-dumpable): once the relay is killed, every connection to the provider leaves ESTABLISHED,
    which one of flue's own would not (flue lives on). The next prompt is then sent from flue."""
    fakellm.script([Turn(text="Relayed answer."), Turn(text="Answered here.")])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    (relay,) = _relays_of(term.child.pid)
    term.send("hello\r")
    term.wait_for("Relayed answer.")
    held = _provider_connections(fakellm)
    assert held, "no connection kept for the next request"
    os.kill(relay, signal.SIGKILL)
    _eventually(lambda: not held & _provider_connections(fakellm), "the connections gone with the relay")
    term.send("again\r")
    term.wait_for("Answered here.")
    assert term.child.isalive()
