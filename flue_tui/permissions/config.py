"""The `[permissions]` table of ~/.config/flue/config.toml and <cwd>/.flue/config.toml, and the policy
built from it plus the command-line flags.

Only this table is read here (the general config file is issue 9's). Precedence: a flag beats the
project file, which beats the user file, which beats the default: ask in every front end, as in
Claude Code (`flue -p` refuses what would ask: nobody is there to answer). Rule lists add up across files and flags; deny always wins over allow.

A project file is untrusted until the user trusts its directory (flue_tui/config/project.py): what
tightens (deny rules, blocklist patterns, a stricter mode) always applies; what loosens (allow
rules, default_blocklist = false, a looser mode) is held back until then.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flue_tui.config.errors import ConfigError
from flue_tui.config.files import Unreadable, read_toml
from flue_tui.config.paths import config_file
from flue_tui.config.project import Held
from flue_tui.config.trust import Snapshot
from flue_tui.permissions import claudefiles
from flue_tui.permissions.claudefiles import STRICTNESS, ClaudeSources
from flue_tui.permissions.policy import MODES, PermissionPolicy, PreToolHooks
from flue_tui.permissions.rules import Rule, RuleError, parse_rules

KEYS = ("mode", "allow", "deny", "blocklist", "default_blocklist", "safe_commands")
SANDBOXES = ("local", "workspace")


@dataclass(slots=True)
class PermissionConfig:
    """The `[permissions]` settings as read from the config files and flags."""

    mode: str | None = None
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    blocklist: list[str] = field(default_factory=list)  # regexes added to the bash blocklist
    default_blocklist: bool = True
    safe_commands: bool = True  # read-only commands run unasked (permissions/readonly.py)
    sources: list[str] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)  # the project's loosening settings, until trusted
    never: list[str] = field(default_factory=list)  # what a project file asked for and never gets
    # Claude Code's settings files (permissions/claudefiles.py): their rules, already mapped.
    claude: ClaudeSources = field(default_factory=ClaudeSources)
    notices: list[str] = field(default_factory=list)  # files skipped as unreadable, rules not mapped

    def claude_rules(self, kind: str) -> list[Rule]:
        """Claude Code's files' `allow`, `deny` or `ask` rules that apply, in the order read."""
        return [r for perms in self.claude.applied for r in getattr(perms, kind)]


def _strings(path: Path, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f'{path}: [permissions] {key} must be a list of strings, e.g. {key} = ["bash(git *)"]')
    return list(value)


def read_file(path: Path, conf: PermissionConfig, *, project: bool, snapshot: Snapshot | None = None) -> set[str]:
    """Merge the [permissions] table of `path` (if the file exists) into conf; the keys it set.
    `snapshot`: the bytes the trust decision read, parsed instead of reading the file again."""
    data = read_toml(path, snapshot)
    if data is None:
        return set()
    table = data.get("permissions")
    if table is None:
        return set()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: permissions must be a table ([permissions]), not a {type(table).__name__}")
    for key in table:
        if key not in KEYS:
            raise ConfigError(f"{path}: unknown key [permissions] {key} (known: {', '.join(KEYS)})")
    conf.sources.append(str(path))
    if "mode" in table:
        mode = table["mode"]
        if not isinstance(mode, str) or mode not in MODES:
            raise ConfigError(f"{path}: [permissions] mode must be one of {', '.join(MODES)}, got {mode!r}")
        if project and mode == "yolo":
            # A cloned repository must not be able to switch approvals off for whoever opens it:
            # ignored, trusted or not, with a notice (stopping flue would let it block the user).
            conf.never.append('[permissions] mode = "yolo"')
        else:
            conf.mode = mode
    for key in ("allow", "deny", "blocklist"):
        if key in table:
            values = _strings(path, key, table[key])
            if key == "blocklist":
                for pattern in values:
                    try:
                        re.compile(pattern)
                    except re.error as exc:
                        raise ConfigError(f"{path}: [permissions] blocklist: bad regex {pattern!r}: {exc}") from None
            else:
                try:
                    parse_rules(values)
                except RuleError as exc:
                    raise ConfigError(f"{path}: [permissions] {key}: {exc}") from None
            getattr(conf, key).extend(values)
    for key in ("default_blocklist", "safe_commands"):
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{path}: [permissions] {key} must be true or false")
            setattr(conf, key, table[key])
    return set(table)


def _optional(path: Path, conf: PermissionConfig, **kw: Any) -> set[str]:
    """read_file of a file that may be unreadable: then skipped, with the one sentence saying so."""
    try:
        return read_file(path, conf, **kw)
    except Unreadable as exc:
        conf.notices.append(str(exc))
        return set()


def load_config(
    cwd: str,
    *,
    trusted: bool = False,
    base_mode: str = "ask",
    flag_mode: str | None = None,
    sources: tuple[str, ...] | None = None,
    project_read: Snapshot | None = None,
    trust_project: bool = False,
    settings_permissions: dict | None = None,
) -> PermissionConfig:
    """The user file, then the project file: its loosening keys only when `trusted`. `base_mode` is
    the mode that applies without the project file's (the front end's default), `flag_mode` the
    --permission-mode flag: a project mode looser than the user's or the default waits for trust.
    Claude Code's files come beside flue's (claudefiles.py): the user's first, flue's own over it;
    a project's `.claude/settings*.json` before `.flue/config.toml`; `--settings` last.
    `trust_project`: --trust-project, which trusts every project file for this run."""
    from flue_tui.config.files import reads

    conf = PermissionConfig()
    claude = conf.claude
    if reads(sources, "user"):  # --setting-sources
        claudefiles.read_user(cwd, claude)
        conf.mode = claude.mode
        _optional(config_file(), conf, project=False)  # flue's own file over Claude Code's
    path = Path(cwd) / ".flue" / "config.toml"
    project = PermissionConfig()
    keys = _optional(path, project, project=True, snapshot=project_read) if reads(sources, "project") else set()
    conf.notices.extend(project.notices)
    claude.mode = None
    kinds = tuple(sources) if sources is not None else None
    for rel in claudefiles.PROJECT_FILES:
        if kinds is None or claudefiles.KINDS[rel] in kinds:
            floor = None if flag_mode is not None else claude.mode or conf.mode or base_mode
            claudefiles.read_project(cwd, rel, claude, trust_project=trust_project, floor=floor)
    conf.mode = claude.mode or conf.mode
    if settings_permissions is not None:
        claudefiles.read_flag(settings_permissions, cwd, claude)
    conf.notices.extend(claude.notices)
    conf.sources.extend(project.sources)
    conf.never.extend(project.never)
    conf.deny.extend(project.deny)
    conf.blocklist.extend(project.blocklist)  # added to the default patterns unless those are dropped
    if project.allow:
        if trusted:
            conf.allow.extend(project.allow)
        else:
            conf.held.append(Held("[permissions] allow", f"[permissions] allow = {json.dumps(project.allow)}"))
    if "default_blocklist" in keys:
        if project.default_blocklist or trusted:
            conf.default_blocklist = project.default_blocklist
        else:
            conf.held.append(
                Held(
                    "[permissions] default_blocklist = false",
                    "[permissions] default_blocklist = false (drops the default command blocklist)",
                )
            )
    if "safe_commands" in keys:
        if not project.safe_commands or trusted or conf.safe_commands:
            conf.safe_commands = project.safe_commands
        else:
            conf.held.append(Held("[permissions] safe_commands = true", "[permissions] safe_commands = true"))
    if project.mode is not None and flag_mode is None:
        floor = conf.mode or base_mode
        if trusted or STRICTNESS[project.mode] >= STRICTNESS[floor]:
            conf.mode = project.mode
        else:
            conf.held.append(
                Held(
                    f'[permissions] mode = "{project.mode}"',
                    f'[permissions] mode = "{project.mode}" (instead of "{floor}")',
                )
            )
    return conf


def load_for(settings: Any) -> PermissionConfig:
    """load_config for a run's settings: its trust, its front end's default mode, its flag."""
    return load_config(
        settings.cwd,
        trusted=getattr(settings, "project_trusted", False),
        base_mode=default_mode(settings),
        flag_mode=getattr(settings, "permission_mode", None),
        sources=getattr(settings, "setting_sources", None),
        project_read=getattr(settings, "project_read", None),
        trust_project=bool(getattr(settings, "trust_project", False)),
        settings_permissions=getattr(settings, "settings_permissions", None),
    )


def default_mode(settings: Any) -> str:
    """ask, whatever the front end: a `flue -p` in CI or a quick question is never handed more
    than `claude -p` has; yolo is chosen (--permission-mode, an allow rule, the user's config)."""
    return "ask"


def mode_for(settings: Any, conf: PermissionConfig | None = None) -> str:
    """The mode a session starts in: the flag, else the config files', else the front end's default."""
    conf = conf if conf is not None else load_for(settings)
    return getattr(settings, "permission_mode", None) or conf.mode or default_mode(settings)


def build_policy(
    settings: Any, conf: PermissionConfig | None = None, guard: Any = None, hooks: PreToolHooks | None = None
) -> PermissionPolicy:
    """A fresh policy for one session from settings (flags) and the config files."""
    conf = conf if conf is not None else load_for(settings)
    mode = mode_for(settings, conf)
    if mode not in MODES:
        raise ConfigError(f"Unknown permission mode {mode!r}: choose one of {', '.join(MODES)}.")
    try:
        allow = parse_rules([*conf.allow, *getattr(settings, "allowed_tools", [])])
        deny = parse_rules([*conf.deny, *getattr(settings, "disallowed_tools", [])])
    except RuleError as exc:
        raise ConfigError(str(exc)) from None
    dirs = [*(getattr(settings, "add_dirs", ()) or ()), *(d for p in conf.claude.applied for d in p.add_dirs)]
    add_dirs = tuple(dict.fromkeys(os.path.abspath(d) for d in dirs))
    return PermissionPolicy(
        mode=mode,
        allow=[*allow, *conf.claude_rules("allow")],
        deny=[*deny, *conf.claude_rules("deny")],
        ask=conf.claude_rules("ask"),
        root=os.path.abspath(settings.cwd),
        add_dirs=add_dirs,
        guard=guard,
        safe_commands=conf.safe_commands,
        hooks=hooks,
    )


def session_policy(
    settings: Any, conf: PermissionConfig, notices: list[str], warnings: list[str], hooks: PreToolHooks | None = None
) -> PermissionPolicy:
    """A root session's own policy (so "allow for this session" ends with it; the Runtime hands it
    to the Session it builds), with the user's PreToolUse `hooks` (hooks/events.Hooks) when there
    are any, and the sandbox's one-time notices passed on as start-up warnings (stderr in print
    mode, a notice in the app)."""
    from flue_tui.sandbox.workspace import workspace_guard

    if getattr(settings, "sandbox", "local") not in SANDBOXES:
        raise ConfigError(f"Unknown sandbox {settings.sandbox!r}: choose one of {', '.join(SANDBOXES)}.")
    guard = workspace_guard(settings, conf.blocklist, conf.default_blocklist)
    policy = build_policy(settings, conf, guard, hooks)
    warnings.extend(n for n in notices if n not in warnings)
    return policy
