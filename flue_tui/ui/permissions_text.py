"""/permissions: the rules the session's policy enforces, each with where it came from (your config,
the project's, a command-line flag, an "always allow" answer in this session).

The policy (permissions/policy.py) holds the merged rules; their origin is found by reading the same
config files again with the reader that built it (permissions/config.read_file), so what is listed
is what is enforced. Rule texts come from repository files: shown terminal-safe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.config.paths import config_file
from flue_tui.permissions.config import PermissionConfig, load_for, read_file
from flue_tui.permissions.policy import PermissionPolicy
from flue_tui.ui.termsafe import terminal_safe


def _read(path: Path, project: bool) -> PermissionConfig:
    conf = PermissionConfig()
    try:
        read_file(path, conf, project=project)
    except ConfigError:
        pass  # a broken file stopped the start already; its rules are not in force
    return conf


def origins(settings: Any) -> dict[str, list[tuple[str, list[str]]]]:
    """{"allow"|"deny"|"ask": [(origin, rule texts)]}, in the order the policy merged them; Claude
    Code's settings files (and --settings) name their file, as the policy read them."""
    from flue_tui.config.files import reads

    sources = getattr(settings, "setting_sources", None)
    user_path = config_file()
    project_path = Path(settings.cwd) / ".flue" / "config.toml"
    user = _read(user_path, False) if reads(sources, "user") else PermissionConfig()
    project = _read(project_path, True) if reads(sources, "project") else PermissionConfig()
    try:
        claude = load_for(settings).claude.applied
    except ConfigError:
        claude = []
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for kind, flag in (("allow", "allowed_tools"), ("deny", "disallowed_tools"), ("ask", "")):
        out[kind] = [
            (f"user config {user_path}", getattr(user, kind, [])),
            (f"project config {project_path}", getattr(project, kind, [])),
            ("command line", list(getattr(settings, flag, []) if flag else [])),
            *((p.origin, [r.text for r in getattr(p, kind)]) for p in claude),
        ]
    return out


def describe(policy: PermissionPolicy, settings: Any) -> str:
    """Blocking (reads the config files): the text of /permissions."""
    lines = [f"Permission mode: {policy.mode} (/mode says what it asks; Shift+Tab switches)."]
    found = origins(settings)
    for kind, rules in (("Deny", policy.deny), ("Ask", policy.ask), ("Allow", policy.allow)):
        if kind == "Ask" and not rules:
            continue  # only Claude Code's settings have ask rules
        lines.append(f"{kind} rules:{'' if rules else ' none'}")
        shown: set[tuple[str, str]] = set()  # one Claude Code rule may be several of flue's (Read: read, grep, glob)
        for rule in rules:
            origin = next((o for o, texts in found[kind.lower()] if rule.text in [t.strip() for t in texts]), "config")
            if (rule.text, origin) not in shown:
                shown.add((rule.text, origin))
                lines.append(f"  {terminal_safe(rule.text)}  — {terminal_safe(origin)}")
    if policy.session_allow:
        lines.append("Allowed for this session (your “always allow” answers):")
        lines += [f"  {terminal_safe(r.text)}" for r in policy.session_allow]
    try:
        conf = load_for(settings)
        held = [*conf.held, *conf.claude.held]
    except ConfigError:
        held = []
    if held:
        lines.append("Held back until you trust this project:")
        lines += [f"  {terminal_safe(h.detail)}" for h in held]
    lines.append("Deny rules win over ask rules, ask rules over allow rules.")
    return "\n".join(lines)
