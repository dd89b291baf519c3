"""A stand-in `git` for the checkpoint store (FLUE_GIT) that stops at one known point and waits
there to be killed: so a test can kill flue at an exact place in a restore or a snapshot, with no
timing in it. Every other call runs the real git.

`held(tmp_path, "status", nth=2)` stops flue's second `git status` before it runs;
`held(tmp_path, "cat-file", blobs=K)` answers every object but stops before the (K+1)th file
content (a restore's blob reads: none written yet with K=0, K written after). With `lock=True`
it first takes git's index lock, as a git killed while writing the index leaves it. The test
waits for `.reached` to exist, then kills.
"""

from __future__ import annotations

import json
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

_SCRIPT = r"""
import json, os, select, subprocess, sys
conf = json.load(open(CONF))
args = sys.argv[1:]
def stop():
    open(conf["reached"], "w").close()
    select.select([], [], [])  # until killed
if args[:1] == [conf["command"]]:
    fd = os.open(conf["count"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.write(fd, b"" if conf["blobs"] is not None else b".")
    os.close(fd)
    if conf["blobs"] is not None:  # every cat-file: answer, and stop before the (K+1)th blob
        real = subprocess.Popen([conf["git"], *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for line in sys.stdin.buffer:
            real.stdin.write(line)
            real.stdin.flush()
            header = real.stdout.readline()
            fields = header.split()
            if len(fields) == 3 and fields[1] == b"blob":
                if os.path.getsize(conf["count"]) >= conf["blobs"]:
                    stop()
                fd = os.open(conf["count"], os.O_WRONLY | os.O_APPEND)
                os.write(fd, b".")
                os.close(fd)
            sys.stdout.buffer.write(header + real.stdout.read(int(fields[2]) + 1 if len(fields) == 3 else 0))
            sys.stdout.buffer.flush()
        real.stdin.close()
        sys.exit(real.wait())
    if os.path.getsize(conf["count"]) == conf["nth"]:
        if conf["lock"]:
            os.close(os.open(os.environ["GIT_INDEX_FILE"] + ".lock", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        stop()
os.execv(conf["git"], [conf["git"], *args])
"""


@dataclass(frozen=True)
class Held:
    git: Path  # FLUE_GIT
    reached: Path  # exists once the stand-in has stopped


def held(tmp_path: Path, command: str, *, nth: int = 1, blobs: int | None = None, lock: bool = False) -> Held:
    real = shutil.which("git")
    assert real is not None
    where = tmp_path / f"held-{command}-{nth}"
    where.mkdir()
    conf = {
        "git": real,
        "command": command,
        "nth": nth,
        "blobs": blobs,
        "lock": lock,
        "reached": str(where / ".reached"),
        "count": str(where / "count"),
    }
    (where / "conf.json").write_text(json.dumps(conf))
    script = where / "git"
    script.write_text(f"#!{sys.executable}\nCONF = {str(where / 'conf.json')!r}\n{_SCRIPT}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return Held(script, where / ".reached")
