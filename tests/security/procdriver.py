"""A stand-in flue process for the security tests: a fresh Python process (with provider keys in
its environment, as flue has) that builds the real sandbox and runs one command through it.
Cheaper than `flue -p` (no litellm import), and it can be killed from outside."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_DRIVER = r"""
import asyncio, json, os, sys
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.sandbox.workspace import WorkspaceSandbox, detect
mode, cwd, command = sys.argv[1:4]
if mode == "local":
    sandbox = LocalSandbox(cwd)
else:
    bwrap = detect()[0] if mode == "bwrap" else None
    if mode == "bwrap" and bwrap is None:
        sys.exit("bubblewrap unusable")
    sandbox = WorkspaceSandbox(cwd, root=cwd, bwrap=bwrap)
import ctypes
getenv = ctypes.CDLL(None).getenv
getenv.restype = ctypes.c_char_p
print(json.dumps({"pid": os.getpid(), "key_still_usable": os.environ.get("OPENAI_API_KEY"),
                  "c_getenv": (getenv(b"OPENAI_API_KEY") or b"").decode()}), flush=True)
result = asyncio.run(sandbox.exec(command))
print(json.dumps({"stdout": result.stdout, "stderr": result.stderr}), flush=True)
"""

ROOT = Path(__file__).resolve().parents[2]


def start(mode: str, cwd: Path, command: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """Start the stand-in; its first stdout line is {"pid": ...}, its last the command's output."""
    return subprocess.Popen(
        [sys.executable, "-c", _DRIVER, mode, str(cwd), command],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run(mode: str, cwd: Path, command: str, env: dict[str, str], timeout: float = 120) -> tuple[dict, dict]:
    proc = start(mode, cwd, command, env)
    out, err = proc.communicate(timeout=timeout)
    lines = out.splitlines()
    assert proc.returncode == 0 and len(lines) == 2, (proc.returncode, out, err)
    return json.loads(lines[0]), json.loads(lines[1])
