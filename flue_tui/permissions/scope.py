"""Where a change may go without a question.

* `within`: accept-edits, a bare `write`/`edit` rule and an "allow for this session" answer cover
  the working directory and the --add-dir roots only; a write elsewhere asks (so `flue -p`
  refuses it) unless a rule names its path (`write(/etc/hosts)`).
* `always_asks`: a few places ask before every change, past every allow rule, in every mode but
  yolo: a `.git` directory (git runs programs named there: core.fsmonitor, hooks, filters), flue's
  own configuration, trust and data files (flue_tui/config/paths.own_locations: a config.toml
  allow rule or a forged trust entry would loosen the next run), a project's
  `.flue/config.toml` (a deny rule taken out of it loosens the next run without any trust) and
  its `.mcp.json` (trust lapses when it changes, but `--trust-project` would start what it names),
  and Claude Code's settings files (a project's `.claude/settings*.json`, the user's `~/.claude`):
  their hooks are commands flue runs.

A path is judged in every spelling that could reach the file: relative to the tool's directory,
`..` collapsed before and after following symlinks (the kernel follows the link first), a leading
`~` and `$VAR` expanded (bash expands them; the file tools do not, so both spellings count), and a
glob's matches. A target still known only when the command runs (`> "$(mktemp)"`) is outside.
Case is folded when comparing with flue's own files and `.git`, for case-insensitive disks.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable

from flue_tui.config.paths import own_locations
from flue_tui.permissions.shell import read_command
from flue_tui.permissions.shellwords import Reading
from flue_tui.sandbox.local import posix_resolve
from flue_tui.sandbox.workspace import WorkspaceEscape, contain, real_path

GIT_WHY = "inside a .git directory, where a change can make git run commands"
OWN_WHY = "one of flue's own configuration, trust or data files, where a change can loosen what flue allows"
PROJECT_WHY = "the project's .flue/config.toml, where a change can drop its deny rules"
MCP_WHY = "a project's .mcp.json, which names programs flue starts (--trust-project would run them)"
HOOKS_WHY = "a Claude Code settings file, whose hooks are commands flue runs (--trust-project would run them)"
# Programs whose operands are files they create, change or remove (sources too: `mv` takes the
# original away). Only the always-ask places are checked against them; a rule allowed the program.
_WRITERS = frozenset("tee cp mv install ln rm rmdir unlink touch truncate chmod chown chgrp mkdir shred rsync".split())
_IN_PLACE = frozenset({"sed", "perl"})  # only with -i
_DYNAMIC = ("$", "`", "…")


def _spellings(path: str, base: str) -> list[str]:
    """`path` as every way the write could land: lexical, kernel-resolved, expanded, globbed."""
    texts = dict.fromkeys([path, os.path.expanduser(path), os.path.expandvars(os.path.expanduser(path))])
    out: list[str] = []
    for text in list(texts):
        if glob.has_magic(text):
            texts.update(dict.fromkeys(glob.glob(text if text.startswith("/") else f"{base}/{text}")))
    for text in texts:
        raw = text if text.startswith("/") else f"{base}/{text}"
        lexical = posix_resolve(base, text)
        out += [lexical, raw]
        for candidate in (lexical, raw):
            try:
                out.append(real_path(candidate))
            except Exception:  # a symlink loop: the kernel refuses it, and the lexical forms stay judged
                pass
    return list(dict.fromkeys(out))


def within(path: str, base: str, roots: Iterable[str]) -> bool:
    """Whether every spelling of `path` lands inside one of `roots` (their real paths)."""
    if any(mark in os.path.expandvars(os.path.expanduser(path)) for mark in _DYNAMIC):
        return False
    real_roots = tuple(real_path(posix_resolve(base, r)) for r in roots)
    texts = dict.fromkeys([path, os.path.expanduser(path)])
    try:
        for text in texts:
            contain(real_roots, base, text)
    except (WorkspaceEscape, ValueError):  # ValueError: a NUL byte, which no file name holds
        return False
    return True


def _own() -> list[str]:
    places: list[str] = []
    for place in own_locations():
        lexical = posix_resolve(os.getcwd(), str(place))
        places.append(lexical)
        try:
            places.append(real_path(lexical))
        except Exception:  # a loop at flue's own path: its lexical spelling still counts
            pass
    return [p.casefold().rstrip("/") for p in dict.fromkeys(places)]


def _under(path: str, place: str) -> bool:
    """`path` is `place`, inside it, or a directory holding it."""
    if path == place or path.startswith(place + "/"):
        return True
    return place.startswith(path.rstrip("/") + "/") and os.path.isdir(path)


_CLAUDE_SETTINGS = ("/.claude/settings.json", "/.claude/settings.local.json")


def _claude_dir() -> str:
    """The user's Claude Code directory (its settings.json hooks run in every project), folded."""
    from flue_tui.hooks.config import claude_dir

    return posix_resolve(os.getcwd(), str(claude_dir())).casefold().rstrip("/")


def always_asks(path: str, base: str) -> str | None:
    """Why a change of `path` asks whatever the mode (but yolo) and the rules say, or None.
    An ancestor of flue's own files counts too (`mv ~/.config elsewhere` takes them away)."""
    spellings = _spellings(path, base)
    folded = [s.casefold() for s in spellings]
    if any(part == ".git" for s in folded for part in s.split("/")):
        return GIT_WHY
    own = _own()
    if any(_under(s, place) or _under(s.casefold(), place) for s in spellings for place in own):
        return OWN_WHY
    if any(s.rstrip("/").endswith("/.flue/config.toml") for s in folded):
        return PROJECT_WHY
    if any(s.rstrip("/").endswith("/.mcp.json") for s in folded):
        return MCP_WHY
    if any(s.rstrip("/").endswith(_CLAUDE_SETTINGS) or _under(s, _claude_dir()) for s in folded):
        return HOOKS_WHY
    return None


def after_cd(reading: Reading, paths: Iterable[str]) -> tuple[str, ...]:
    """`paths` plus, when the command changes directory (`cd ~/.config/flue && echo > config.toml`),
    each relative one joined to every directory it goes to: which one applies is only known as
    it runs, so every one is judged."""
    dirs = [
        (c.argv[1] if len(c.argv) > 1 and c.argv[1] != "-" else "$OLDPWD" if len(c.argv) > 1 else "~")
        for c in reading.commands
        if c.argv and c.argv[0] in ("cd", "pushd")
    ]
    paths = list(paths)
    joined = [f"{d}/{p}" for d in dirs for p in paths if not p.startswith(("/", "~"))]
    return tuple(dict.fromkeys([*paths, *joined]))


def changed_by_command(command: str) -> tuple[str, ...]:
    """The files a bash command's redirections write plus the operands of programs that change
    files (`tee`, `cp`, `mv`, `rm`, `sed -i` …): what the always-ask places are checked against."""
    reading = read_command(command)
    out = list(reading.writes)
    for cmd in reading.commands:
        if not cmd.argv:
            continue
        prog = cmd.argv[0].rsplit("/", 1)[-1]
        args = list(cmd.argv[1:])
        if prog == "dd":
            out += [a[3:] for a in args if a.startswith("of=")]
        elif prog in _WRITERS or (prog in _IN_PLACE and any(a.startswith(("-i", "--in-place", "-pi")) for a in args)):
            dashdash = args.index("--") if "--" in args else len(args)
            out += [a for i, a in enumerate(args) if a and a != "--" and (i > dashdash or not a.startswith("-"))]
    return after_cd(reading, out)
