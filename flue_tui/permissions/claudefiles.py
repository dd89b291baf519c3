"""Claude Code's settings files as permission sources, read as Claude Code reads them: the user's
`~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`) applies whole; a project's `.claude/settings.json`
and `.claude/settings.local.json` always apply their `deny` and `ask` rules (a repository may always
restrict), while their `allow` rules, `additionalDirectories` and a looser `defaultMode` wait until
the user trusts that file (config/trust.py, by its SHA-256, or --trust-project for one run).
`defaultMode: "bypassPermissions"` is never taken from a project, as yolo from `.flue/config.toml`.

Each project file is read once (trust.read): the bytes judged trusted are the bytes parsed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from flue_tui.config import trust
from flue_tui.config.errors import ConfigError
from flue_tui.config.files import Unreadable, read_json
from flue_tui.config.project import Held
from flue_tui.permissions.claude import ClaudePermissions, read_permissions
from flue_tui.permissions.flags import CLAUDE_MODE

PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")
KINDS = {".claude/settings.json": "project", ".claude/settings.local.json": "local"}
STRICTNESS = {"yolo": 0, "accept-edits": 1, "ask": 2, "plan": 3}


@dataclass(slots=True)
class ClaudeSources:
    """What Claude Code's files give the policy: the parts that apply, what waits for trust."""

    applied: list[ClaudePermissions] = field(default_factory=list)
    mode: str | None = None  # flue's name of the last defaultMode that applies
    held: list[Held] = field(default_factory=list)
    files: dict[str, str | None] = field(default_factory=dict)  # held files: trusting grants these bytes
    changed: list[str] = field(default_factory=list)  # held files that changed since trusted
    notices: list[str] = field(default_factory=list)


def user_file() -> Path:
    from flue_tui.hooks.config import claude_dir

    return claude_dir() / "settings.json"


def read_user(cwd: str, out: ClaudeSources) -> None:
    """~/.claude/settings.json: the user's own, all of it applies; unreadable, a notice."""
    path = user_file()
    try:
        perms = read_permissions(read_json(path), str(path), str(path.parent.parent), cwd)
    except Unreadable as exc:
        out.notices.append(str(exc))
        return
    if perms is not None:
        out.applied.append(perms)
        out.notices.extend(perms.unmapped)
        out.mode = perms.mode or out.mode


def read_project(cwd: str, rel: str, out: ClaudeSources, *, trust_project: bool, floor: str | None) -> None:
    """One project file: deny and ask always; allow, directories, a looser mode once trusted.
    `floor`: the mode that applies without it (a stricter one always applies); None: the
    --permission-mode flag decides, the file's mode is not read."""
    snap = trust.read(cwd, rel)
    try:
        perms = read_permissions(read_json(snap.path, snap), str(snap.path), cwd, cwd)
    except Unreadable as exc:
        out.notices.append(str(exc))
        return
    except ConfigError as exc:  # a repository written for another Claude Code must not stop flue
        out.notices.append(f"Ignored the permissions of {exc}")
        return
    if perms is None:
        return
    out.notices.extend(perms.unmapped)
    trusted = trust_project or snap.state == "trusted"
    held: list[Held] = []
    mode = perms.mode if floor is not None else None
    if mode == "yolo":
        out.notices.append(
            f'Ignored from {rel}: permissions.defaultMode "bypassPermissions" (a project may not switch '
            f"approvals off, trusted or not); set it in {user_file()} or pass --permission-mode yolo."
        )
        mode = None
    elif mode is not None and floor is not None and not trusted and STRICTNESS[mode] < STRICTNESS[floor]:
        held.append(
            Held(
                f"{rel} permissions.defaultMode",
                f'{rel}: permissions.defaultMode "{CLAUDE_MODE[mode]}" (instead of "{floor}")',
            )
        )
        mode = None
    if mode is not None:
        out.mode = mode
    if not trusted and perms.allow:
        texts = list(dict.fromkeys(r.text for r in perms.allow))
        held.append(Held(f"{rel} permissions.allow", f"{rel}: permissions.allow {json.dumps(texts)}"))
    if not trusted and perms.add_dirs:
        held.append(
            Held(
                f"{rel} permissions.additionalDirectories",
                f"{rel}: permissions.additionalDirectories {json.dumps(list(perms.add_dirs))}",
            )
        )
    if trusted:
        out.applied.append(perms)
    else:
        out.applied.append(ClaudePermissions(perms.origin, deny=perms.deny, ask=perms.ask))
    if held:
        out.held += held
        out.files[rel] = snap.sha256
        why = "it changed since you trusted this project" if snap.state == "changed" else None
        if why is not None:
            out.changed.append(rel)
        out.notices.append(
            f"Ignored from {rel} because {why or 'you have not trusted this project'}: "
            f"{', '.join(h.key.split(' ', 1)[1] for h in held)} "
            "(trust it by answering yes when flue asks, with flue trust, or with --trust-project)."
        )


def read_flag(flag: dict, cwd: str, out: ClaudeSources) -> None:
    """--settings' permissions: the user's own flag, applied whole (its defaultMode is the flag's)."""
    perms = read_permissions({"permissions": flag}, "--settings", cwd, cwd)
    if perms is not None:
        out.applied.append(perms)
        out.notices.extend(perms.unmapped)
