"""What a project's `.flue/config.toml` may do before and after the user trusts its directory.

A cloned repository is untrusted input. Its config file may always tighten protection (deny rules,
extra blocklist patterns, a stricter permission mode, the workspace sandbox). Whatever loosens it —
allow rules, `default_blocklist = false`, a looser permission mode, any `[env]` variable — is held
back, with a one-line notice, until the user trusts the directory (the question in the app and in
inline mode, `--trust-project` for one run). Trust is stored by flue_tui/config/trust.py and lapses when the
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

from flue_tui.config import trust

PROJECT_CONFIG = ".flue/config.toml"

NEVER_ENV = frozenset(
    {
        # The shell: a startup file sourced before every `bash -c` / `sh -c`, options and hooks that
        # execute (xtrace + PS4's command substitution), word splitting and where `cd` lands.
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS0",
        "PS1",
        "PS4",
        "PROMPT_COMMAND",
        "IFS",
        "CDPATH",
        "GLOBIGNORE",
        # Where programs are found, and where they read their own config (git's core.pager, hooks, npmrc).
        "PATH",
        "HOME",
        "XDG_CONFIG_HOME",
        "XDG_CONFIG_DIRS",
        "ZDOTDIR",
        "SHELL",
        # Libraries loaded into any program: glibc's iconv modules, OpenSSL's engines and providers.
        "GCONV_PATH",
        "OPENSSL_CONF",
        "OPENSSL_ENGINES",
        "OPENSSL_MODULES",
        # Interpreters' start-up hooks and module paths.
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONUSERBASE",
        "PYTHONBREAKPOINT",
        "PYTHONWARNINGS",
        "PYTHONEXECUTABLE",
        "PYTHONPLATLIBDIR",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "PERL5DB",
        "RUBYOPT",
        "RUBYLIB",
        "GEM_HOME",
        "GEM_PATH",
        "NODE_OPTIONS",
        "NODE_PATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        # Package indexes: an approved `pip install x` / `uv add x` would fetch someone else's x.
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "UV_INDEX",
        "UV_INDEX_URL",
        "UV_EXTRA_INDEX_URL",
        "UV_DEFAULT_INDEX",
        # Programs other programs start: editors (vi runs EXINIT), pagers (less runs LESSOPEN; LESS can
        # hold `+!cmd`), password prompts.
        "EDITOR",
        "VISUAL",
        "EXINIT",
        "VIMINIT",
        "PAGER",
        "MANPAGER",
        "LESS",
        "LESSOPEN",
        "LESSCLOSE",
        "BROWSER",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
    }
)
# Whole families: the dynamic loader (LD_PRELOAD, LD_AUDIT, macOS's DYLD_INSERT_LIBRARIES), git
# (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_* injects any config such as core.fsmonitor),
# bash's exported functions, npm's config (script-shell, node-options).
NEVER_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_")


@dataclass(frozen=True, slots=True)
class Held:
    """One loosening setting the project file asked for and did not get."""

    key: str  # as the notice names it: "[permissions] allow", "[env] NAME"
    detail: str  # what it would set, for the trust question


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
