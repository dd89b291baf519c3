"""Asking the user to trust a project: what its `.flue/config.toml` would loosen (settings and
permission rules together), the notices for what it did not get, and accepting the answer.

The rules themselves (what is held back, which `[env]` names are never taken) live in
flue_tui/config/project.py; this half needs the permission rules too, so it sits above config.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_tui.config import trust
from flue_tui.config.project import PROJECT_CONFIG, Held
from flue_tui.core.termsafe import terminal_safe, visible


@dataclass(frozen=True, slots=True)
class Pending:
    """What trusting the project would change: the front ends ask about this."""

    path: str
    held: tuple[Held, ...]
    changed: bool  # trusted before, but the file has changed since
    sha256: str | None
    # Every file trusting grants, with the SHA-256 the user was shown (.flue/config.toml, .mcp.json).
    files: tuple[tuple[str, str | None], ...] = ()
    changed_files: tuple[str, ...] = ()  # which of `files` changed since they were trusted


def _all_held(settings: Any) -> list[Held]:
    from flue_tui.permissions.config import load_for

    return [*getattr(settings, "project_held", []), *load_for(settings).held]


def notices(
    settings: Any, permission_held: list[Held], permission_never: tuple[str, ...] | list[str] = ()
) -> list[str]:
    """The one-line notices for what the project file did not get (shown at the start of a session)."""
    from flue_tui.config.files import user_file

    out = []
    held = [*getattr(settings, "project_held", []), *permission_held]
    if held:
        why = (
            "it changed since you trusted this project"
            if _read_of(settings).state == "changed"
            else "you have not trusted this project"
        )
        out.append(
            f"Ignored from {PROJECT_CONFIG} because {why}: {', '.join(h.key for h in held)} "
            "(trust it by answering yes when flue asks, or with --trust-project)."
        )
    if permission_never:
        out.append(
            f"Ignored from {PROJECT_CONFIG}: {', '.join(permission_never)} (a project may not loosen protection, "
            f"trusted or not); set it in {user_file()} or pass --permission-mode yolo."
        )
    never = getattr(settings, "project_never", [])
    if never:
        out.append(
            f"Never taken from a project file: [env] {', '.join(never)} (they make commands run other "
            f"code); set them in {user_file()} if you need them."
        )
    return out


def _read_of(settings: Any) -> trust.Snapshot:
    """The project file as the settings read it (once, for their trust decision)."""
    read = getattr(settings, "project_read", None)
    return read if read is not None else trust.read(settings.cwd, PROJECT_CONFIG)


def pending(settings: Any) -> Pending | None:
    """What the front end should ask about before the first session, or None (nothing to trust)."""
    from flue_tui.config.errors import ConfigError

    held: list[Held] = []
    files: dict[str, str | None] = {}
    changed = False
    changed_files: list[str] = []
    root = trust.directory_key(settings.cwd)
    try:
        if not getattr(settings, "project_trusted", False):
            held = _all_held(settings)
            if held:
                # The digest of the bytes the held settings were parsed from: a yes trusts what was shown.
                read = _read_of(settings)
                files[PROJECT_CONFIG] = read.sha256
                changed = read.state == "changed"
                changed_files += [PROJECT_CONFIG] if changed else []
        _claude(settings, held, files, changed_files)
        changed = changed or bool(changed_files)
        from flue_tui.mcp.config import PROJECT_FILE, load, program_files

        setup = load(settings)  # a project's .mcp.json servers start programs
    except ConfigError:  # starting the session reports it, in one sentence
        return None
    servers = setup.held
    if servers:
        for s in servers:
            runs = program_files(settings.cwd, [s])
            also = f" (trusting covers {', '.join(runs)} as it is now)" if runs else ""
            held.append(
                Held(f"{PROJECT_FILE} server {s.name}", f"{PROJECT_FILE} server {s.name}: {s.describe()}{also}")
            )
        # .mcp.json: the digest of the bytes its servers were parsed from (a yes trusts what was shown).
        files[PROJECT_FILE] = setup.project_sha256
        if setup.project_state == "changed":
            changed, changed_files = True, [*changed_files, PROJECT_FILE]
        # Trust covers the repository programs the servers run too: a pull that changes one asks again.
        for rel in program_files(settings.cwd, servers):
            files[rel] = trust.digest(Path(root) / rel)
            if trust.state(settings.cwd, rel) == "changed":
                changed, changed_files = True, [*changed_files, rel]
    try:
        from flue_tui.hooks.config import load as load_hooks

        hooks = load_hooks(settings)
    except ConfigError:
        hooks = None
    if hooks is not None and hooks.held:
        for h in hooks.held:
            held.append(Held(f"{h.origin} hook", f"{h.origin}: {h.event} hook runs {h.command}"))
        # Trust covers each settings file by its SHA-256: a pull that changes a hook asks again.
        for rel in hooks.held_files:
            files[rel] = trust.digest(Path(root) / rel)
            if trust.state(settings.cwd, rel) == "changed":
                changed, changed_files = True, [*changed_files, rel]
    _commands(settings, root, held, files)
    if not held:
        return None
    first = next(iter(files))
    return Pending(f"{root}/{first}", tuple(held), changed, files[first], tuple(files.items()), tuple(changed_files))


def _claude(settings: Any, held: list[Held], files: dict[str, str | None], changed: list[str]) -> None:
    """A project's `.claude/settings*.json` permissions waiting for trust: each file by the SHA-256
    of the bytes its held settings were parsed from (permissions/claudefiles.py)."""
    from flue_tui.permissions.config import load_for

    claude = load_for(settings).claude
    held += claude.held
    files.update(claude.files)
    changed += [rel for rel in claude.changed if rel not in changed]


def _commands(settings: Any, root: str, held: list[Held], files: dict[str, str | None]) -> None:
    """A project's `.claude/commands` whose allowed-tools would run calls unasked: trusting covers
    each such file by its SHA-256, as a hook's settings file (context/commands.py reads them)."""
    import os

    from flue_tui.context.commands import discover_commands

    if getattr(settings, "trust_project", False):
        return
    for command in discover_commands(settings.cwd, None).commands:
        if command.allowed_tools and not command.trusted:
            rel = os.path.relpath(command.path, settings.cwd)
            rules = ", ".join(command.allowed_tools)
            held.append(Held(f"{rel} allowed-tools", f"{rel}: /{command.name} runs {rules} without asking"))
            files[rel] = trust.digest(Path(root) / rel)


def accept(settings: Any, asked: Pending) -> Any:
    """The user said yes: trust the file as it was when asked; the settings re-read with it."""
    trust.grant(settings.cwd, dict(asked.files) or {PROJECT_CONFIG: asked.sha256})
    return settings.reloaded()


def question(asked: Pending) -> tuple[str, list[str]]:
    """The question's title and the lines it shows (the same words in the app and inline)."""
    what = "changed since you trusted it, and now asks" if asked.changed else "asks"
    title = f"Trust this project? {asked.path} {what} to loosen protection:"
    others = [f for f in asked.changed_files if not asked.path.endswith("/" + f)]
    if others:  # a program a server runs changed, not the file that names it
        title = (
            f"Trust this project? {asked.path} asks to loosen protection, and {', '.join(others)} "
            "changed since you trusted it:"
        )
    # The repository wrote these words (a server's arguments, its path, a hook's command): every
    # byte shown, never obeyed, none hidden (an escape sequence dropped could hide a command).
    return terminal_safe(title), [visible(h.detail) for h in asked.held]


async def ask_on_terminal(asked: Pending) -> bool:
    """The line-mode trust question (the plain front end, a dumb terminal): y trusts, else not."""
    import asyncio
    import sys

    title, lines = question(asked)
    print(title, *(f"  │ {line}" for line in lines), sep="\n", file=sys.stderr)
    try:
        answer = await asyncio.to_thread(
            input, "  [y] trust this folder (asked again if the file changes)  [n] not now > "
        )
    except EOFError:  # stdin closed: nobody said yes
        return False
    return answer.strip().lower() in ("y", "yes", "1")
