"""Takes the runner's passwordless sudo away before the agent runs (the allow-sudo input keeps it).

With it, any command the agent runs is root: it could read every process's memory, the runner's
(which holds the job's secrets) included. GitHub-hosted runners grant it in /etc/sudoers.d; this
removes the user's NOPASSWD rules there and in /etc/sudoers, then checks that `sudo -n` fails, and
stops the step when it still works. Only on a runner: elsewhere the machine is its owner's. A
self-hosted runner keeps its files across jobs, so there it refuses rather than edit them.

`python nosudo.py root USER [FILE...]` is the part that runs as root (through `sudo -n`).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Mapping

SUDOERS = ("/etc/sudoers", "/etc/sudoers.d")
# What sudo and the root phase run with: no key, nothing of the step's environment.
_CLEAN = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}


def _flag(environ: Mapping[str, str]) -> bool | None:
    value = environ.get("INPUT_ALLOW_SUDO", "").strip().lower()
    return {"": False, "false": False, "true": True}.get(value)


def _passwordless(sudo: str) -> bool:
    done = subprocess.run(
        [sudo, "-n", "true"], env=_CLEAN, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return done.returncode == 0


def drop(environ: Mapping[str, str]) -> str | None:
    """None once the agent can no longer use sudo without a password (or the workflow allowed it);
    else the one sentence the step stops with."""
    allow = _flag(environ)
    if allow is None:
        return f"allow-sudo is true or false, not {environ.get('INPUT_ALLOW_SUDO', '')!r}"
    if allow or environ.get("GITHUB_ACTIONS") != "true":
        return None
    sudo = shutil.which("sudo", path=environ.get("PATH"))
    if sudo is None or not _passwordless(sudo):
        return None
    if environ.get("RUNNER_ENVIRONMENT") != "github-hosted":
        return (
            "this self-hosted runner gives passwordless sudo, and taking it away would outlast the job: "
            "remove it from the runner, or set allow-sudo: true to let the agent's commands run as root"
        )
    user = pwd.getpwuid(os.getuid()).pw_name
    print(f"flue action: taking passwordless sudo from {user} (allow-sudo: true keeps it)", file=sys.stderr)
    quiet = {"env": _CLEAN, "stdin": subprocess.DEVNULL, "stdout": sys.stderr}
    subprocess.run([sudo, "-n", sys.executable, "-I", os.path.abspath(__file__), "root", user], check=False, **quiet)
    subprocess.run([sudo, "-K"], check=False, stderr=subprocess.DEVNULL, **quiet)
    if _passwordless(sudo):
        return (
            f"{user} still has passwordless sudo after its rules were removed from /etc/sudoers*: "
            "set allow-sudo: true to let the agent's commands run as root"
        )
    return None


def _rules_without(text: str, user: str) -> str:
    """`text` without the user's NOPASSWD rules; a rule is its line and the lines a trailing
    backslash continues it onto, judged and removed whole."""
    kept: list[str] = []
    rule: list[str] = []
    for line in text.splitlines(keepends=True):
        rule.append(line)
        if line.rstrip("\r\n").endswith("\\"):
            continue
        words = "".join(rule).split(None, 1)
        if not (words and words[0] == user and "NOPASSWD" in "".join(rule)):
            kept += rule
        rule = []
    return "".join(kept + rule)


def strip(path: str, user: str) -> bool:
    """Rewrite one sudoers file without the user's NOPASSWD rules (atomically, same mode);
    True when it changed."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError):
        return False
    kept = _rules_without(text, user)
    if kept == text:
        return False
    temp = f"{path}.flue-tmp"  # sudo skips names holding a dot in sudoers.d
    with open(temp, "w", encoding="utf-8") as fh:
        fh.write(kept)
    os.chmod(temp, os.stat(path).st_mode & 0o7777)
    os.replace(temp, path)
    return True


def root_phase(user: str, places: tuple[str, ...] = SUDOERS) -> list[str]:
    """Every file under `places` (files, or directories of them) the user's rules were removed from."""
    files: list[str] = []
    for place in places:
        if os.path.isdir(place):
            files += sorted(os.path.join(place, name) for name in os.listdir(place))
        else:
            files.append(place)
    return [path for path in files if os.path.isfile(path) and not os.path.islink(path) and strip(path, user)]


if __name__ == "__main__":
    if sys.argv[1:2] != ["root"] or len(sys.argv) < 3:
        sys.exit(__doc__)
    for changed in root_phase(sys.argv[2], tuple(sys.argv[3:]) or SUDOERS):
        print(f"flue action: removed {sys.argv[2]}'s NOPASSWD rules from {changed}", file=sys.stderr)
