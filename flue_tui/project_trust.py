"""What a project's `.flue/config.toml` may do before and after the user trusts its directory.

A cloned repository is untrusted input. Its config file may always tighten protection (deny rules,
extra blocklist patterns, a stricter permission mode, the workspace sandbox). Whatever loosens it —
allow rules, `default_blocklist = false`, a looser permission mode, any `[env]` variable — is held
back, with a one-line notice, until the user trusts the directory (the question in the app and in
inline mode, `--trust-project` for one run). Trust is stored by flue_tui/trust.py and lapses when the
file's bytes change. Keys that neither loosen nor tighten (model, compaction_model, auto_compact,
context_window, max_turns, [ui]) always apply; `sandbox = "local"`, `allow_network = true` and
`mode = "yolo"` stay refused from a project file, trusted or not.

Some variables are never taken from a project file, trusted or not (NEVER_ENV): each makes the
commands a user approves run other code than they read. A user who wants one sets it in their own
config file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_tui import trust

PROJECT_CONFIG = ".flue/config.toml"

NEVER_ENV = frozenset({
    # The shell: a startup file sourced before every `bash -c` / `sh -c`, options and hooks that
    # execute (xtrace + PS4's command substitution), word splitting and where `cd` lands.
    "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS0", "PS1", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH",
    "GLOBIGNORE",
    # Where programs are found, and where they read their own config (git's core.pager, hooks, npmrc).
    "PATH", "HOME", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "ZDOTDIR", "SHELL",
    # Libraries loaded into any program: glibc's iconv modules, OpenSSL's engines and providers.
    "GCONV_PATH", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
    # Interpreters' start-up hooks and module paths.
    "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONBREAKPOINT", "PYTHONWARNINGS",
    "PYTHONEXECUTABLE", "PYTHONPLATLIBDIR", "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB",
    "GEM_HOME", "GEM_PATH", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    # Package indexes: an approved `pip install x` / `uv add x` would fetch someone else's x.
    "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX",
    # Programs other programs start: editors (vi runs EXINIT), pagers (less runs LESSOPEN; LESS can
    # hold `+!cmd`), password prompts.
    "EDITOR", "VISUAL", "EXINIT", "VIMINIT", "PAGER", "MANPAGER", "LESS", "LESSOPEN", "LESSCLOSE", "BROWSER",
    "SSH_ASKPASS", "SUDO_ASKPASS",
})
# Whole families: the dynamic loader (LD_PRELOAD, LD_AUDIT, macOS's DYLD_INSERT_LIBRARIES), git
# (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_* injects any config such as core.fsmonitor),
# bash's exported functions, npm's config (script-shell, node-options).
NEVER_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_")


@dataclass(frozen=True, slots=True)
class Held:
    """One loosening setting the project file asked for and did not get."""

    key: str  # as the notice names it: "[permissions] allow", "[env] NAME"
    detail: str  # what it would set, for the trust question


@dataclass(frozen=True, slots=True)
class Pending:
    """What trusting the project would change: the front ends ask about this."""

    path: str
    held: tuple[Held, ...]
    changed: bool  # trusted before, but the file has changed since
    sha256: str | None
    # Every file trusting grants, with the SHA-256 the user was shown (.flue/config.toml, .mcp.json).
    files: tuple[tuple[str, str | None], ...] = ()


def runs_code(name: str) -> bool:
    upper = name.upper()  # npm reads npm_config_*; a differently cased name gains nothing either way
    return upper in NEVER_ENV or upper.startswith(NEVER_PREFIXES)


def split_env(env: dict[str, str], trusted: bool) -> tuple[dict[str, str], list[Held], list[str]]:
    """A project's [env]: (what applies, what waits for trust, what is never taken)."""
    kept: dict[str, str] = {}
    held: list[Held] = []
    never: list[str] = []
    for name, value in env.items():
        if runs_code(name):
            never.append(name)
        elif trusted:
            kept[name] = value
        else:
            held.append(Held(f"[env] {name}", f"[env] {name} = {json.dumps(value, ensure_ascii=False)}"))
    return kept, held, never


def project_state(cwd: str) -> trust.State:
    return trust.state(cwd, PROJECT_CONFIG)


def _all_held(settings: Any) -> list[Held]:
    from flue_tui.permissions.config import load_for

    return [*getattr(settings, "project_held", []), *load_for(settings).held]


def notices(settings: Any, permission_held: list[Held]) -> list[str]:
    """The one-line notices for what the project file did not get (shown at the start of a session)."""
    from flue_tui.config_files import user_file

    out = []
    held = [*getattr(settings, "project_held", []), *permission_held]
    if held:
        why = ("it changed since you trusted this project" if project_state(settings.cwd) == "changed"
               else "you have not trusted this project")
        out.append(f"Ignored from {PROJECT_CONFIG} because {why}: {', '.join(h.key for h in held)} "
                   "(trust it by answering yes when flue asks, or with --trust-project).")
    never = getattr(settings, "project_never", [])
    if never:
        out.append(f"Never taken from a project file: [env] {', '.join(never)} (they make commands run other "
                   f"code); set them in {user_file()} if you need them.")
    return out


def pending(settings: Any) -> Pending | None:
    """What the front end should ask about before the first session, or None (nothing to trust)."""
    from flue_tui.config import ConfigError

    held: list[Held] = []
    files: dict[str, str | None] = {}
    changed = False
    root = trust.directory_key(settings.cwd)
    try:
        if not getattr(settings, "project_trusted", False):
            held = _all_held(settings)
            if held:
                files[PROJECT_CONFIG] = trust.digest(Path(root) / PROJECT_CONFIG)
                changed = project_state(settings.cwd) == "changed"
        from flue_tui.mcp.config import PROJECT_FILE, load

        servers = load(settings).held  # a project's .mcp.json servers start programs
    except ConfigError:  # starting the session reports it, in one sentence
        return None
    if servers:
        held.extend(Held(f"{PROJECT_FILE} server {s.name}", f"{PROJECT_FILE} server {s.name}: {s.describe()}")
                    for s in servers)
        files[PROJECT_FILE] = trust.digest(Path(root) / PROJECT_FILE)
        changed = changed or trust.state(settings.cwd, PROJECT_FILE) == "changed"
    if not held:
        return None
    first = next(iter(files))
    return Pending(f"{root}/{first}", tuple(held), changed, files[first], tuple(files.items()))


def accept(settings: Any, asked: Pending) -> None:
    """The user said yes: trust the file as it was when asked, and re-read the settings with it."""
    trust.grant(settings.cwd, dict(asked.files) or {PROJECT_CONFIG: asked.sha256})
    settings.reload()


def question(asked: Pending) -> tuple[str, list[str]]:
    """The question's title and the lines it shows (the same words in the app and inline)."""
    what = "changed since you trusted it, and now asks" if asked.changed else "asks"
    title = f"Trust this project? {asked.path} {what} to loosen protection:"
    return title, [h.detail for h in asked.held]


async def ask_on_terminal(asked: Pending) -> bool:
    """The line-mode trust question (the plain front end, a dumb terminal): y trusts, else not."""
    import asyncio
    import sys

    title, lines = question(asked)
    print(title, *(f"  │ {line}" for line in lines), sep="\n", file=sys.stderr)
    try:
        answer = await asyncio.to_thread(input, "  [y] trust this folder (asked again if the file changes)  "
                                                "[n] not now > ")
    except EOFError:  # stdin closed: nobody said yes
        return False
    return answer.strip().lower() in ("y", "yes", "1")
