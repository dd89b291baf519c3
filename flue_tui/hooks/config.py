"""Where hooks come from, in Claude Code's settings shape:

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}

Sources, all of them apply (as in Claude Code, hooks from every file run; none overrides another):
the user's `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR` when set), `[hooks]` in flue's own
config.toml (the same shape in TOML), `--settings FILE|JSON`, and a project's
`.claude/settings.json` and `.claude/settings.local.json`. A project's hooks run commands, so they
apply only once the user trusts the project (config/trust.py, each file by its SHA-256: a pull that
changes one asks again) or passes --trust-project; until then they are listed in one notice.

A bad shape in the user's own files or --settings stops the start in one sentence naming the file
and key; in a project's file it is a notice and that file's hooks are ignored (a repository written
for a newer Claude Code must not keep flue from starting). A file that cannot be read at all (a
directory in its place, not UTF-8 JSON) is skipped in one sentence (config/files.Unreadable).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flue_tui.config.errors import ConfigError

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
# Events whose matcher names a tool.
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
# What the matcher of the other events is matched against, as Claude Code does: SessionStart's
# `source`, SessionEnd's `reason`, PreCompact's `trigger`, Notification's `notification_type`,
# SubagentStop's `agent_type`. UserPromptSubmit and Stop have none: their matcher is ignored.
MATCHED_EVENTS = (*TOOL_EVENTS, "SessionStart", "SessionEnd", "PreCompact", "Notification", "SubagentStop")
# Claude Code's events that flue does not fire (its 2.1 list): a settings file written for it is
# read, these are skipped with one notice, never a refused start.
LATER_EVENTS = frozenset(
    "PostToolUseFailure PostToolBatch UserPromptExpansion StopFailure SubagentStart PostCompact "
    "PreModelSwitch PostModelSwitch PermissionRequest PermissionDenied Setup TeammateIdle TaskCreated "
    "TaskCompleted Elicitation ElicitationResult ConfigChange WorktreeCreate WorktreeRemove "
    "InstructionsLoaded CwdChanged FileChanged DirectoryAdded MessageDisplay PreSkillShellCommand".split()
)
PROJECT_FILES = (".claude/settings.json", ".claude/settings.local.json")
DEFAULT_TIMEOUT = 60.0  # seconds, Claude Code's default per command hook
# SessionEnd runs while flue exits: Claude Code bounds it at 1.5 s unless the hook sets its own.
SESSION_END_TIMEOUT = 1.5


@dataclass(frozen=True, slots=True)
class Hook:
    """One hook command for one event, with the tools it matches and where it came from."""

    event: str
    matcher: str  # "" or "*": every tool
    command: str
    timeout: float
    origin: str  # the file it came from, or "--settings"
    # An Agent SDK hook: the callback id its `hook_callback` control request names (the SDK's
    # process answers it instead of a command), and whether a callback that fails or does not
    # answer in time blocks, as the SDK's `on_failure="block"` asks.
    callback: str | None = None
    blocks_on_failure: bool = False

    def matches(self, names: tuple[str, ...]) -> bool:
        """Claude Code's matcher: empty or `*` is everything; a plain name (letters, digits, `_`, `|`)
        is exact names separated by `|`; anything else is a regular expression, matched in full
        against any of the call's names (Claude Code's, then flue's), or the event's one value
        (MATCHED_EVENTS)."""
        if self.event not in MATCHED_EVENTS or self.matcher in ("", "*"):
            return True
        if re.fullmatch(r"[\w|]+", self.matcher):
            wanted = set(self.matcher.split("|"))
            return any(n in wanted for n in names)
        try:
            pattern = re.compile(self.matcher)
        except re.error:
            return False  # checked when read; unreachable
        return any(pattern.fullmatch(n) for n in names)


@dataclass(frozen=True, slots=True)
class HookSetup:
    """The hooks that run, the notices about them, and a project's hooks waiting for trust."""

    hooks: tuple[Hook, ...] = ()
    notices: tuple[str, ...] = ()
    held: tuple[Hook, ...] = ()  # a project's hooks waiting for trust
    held_files: tuple[str, ...] = ()  # the project files they come from (what trusting covers)

    def for_event(self, event: str) -> tuple[Hook, ...]:
        return tuple(h for h in self.hooks if h.event == event)


def claude_dir() -> Path:
    """Claude Code's own directory: `$CLAUDE_CONFIG_DIR`, else ~/.claude."""
    explicit = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(explicit).expanduser() if explicit else Path.home() / ".claude"


def parse(table: Any, origin: str, skipped: list[str] | None = None) -> list[Hook]:
    """The `hooks` object of one source, checked; raises ConfigError with one sentence. Claude
    Code's events flue does not fire go into `skipped` as "origin: Event"."""
    if not isinstance(table, dict):
        raise ConfigError(f'{origin}: hooks must be an object of events, e.g. {{"PreToolUse": [...]}}')
    out: list[Hook] = []
    for event, groups in table.items():
        if event in LATER_EVENTS:
            if skipped is not None:
                skipped.append(f"{origin}: {event}")
            continue
        if event not in EVENTS:
            raise ConfigError(f"{origin}: unknown hook event {event!r} (known: {', '.join(EVENTS)})")
        if not isinstance(groups, list):
            raise ConfigError(f"{origin}: hooks.{event} must be a list of {{matcher, hooks}} objects")
        for i, group in enumerate(groups):
            where = f"{origin}: hooks.{event}[{i}]"
            if not isinstance(group, dict):
                raise ConfigError(f"{where} must be an object with matcher and hooks")
            matcher = group.get("matcher", "")
            if not isinstance(matcher, str):
                raise ConfigError(f"{where}.matcher must be a string (a tool name, names joined by |, or a regex)")
            try:
                re.compile("" if matcher == "*" else matcher)
            except re.error as exc:
                raise ConfigError(f"{where}.matcher is not a valid regular expression ({exc})") from None
            commands = group.get("hooks")
            if not isinstance(commands, list):
                raise ConfigError(f"{where}.hooks must be a list of {{type: command, command}} objects")
            for j, entry in enumerate(commands):
                out.append(_command(entry, f"{where}.hooks[{j}]", event, matcher, origin))
    return out


def _command(entry: Any, where: str, event: str, matcher: str, origin: str) -> Hook:
    if not isinstance(entry, dict):
        raise ConfigError(f'{where} must be an object such as {{"type": "command", "command": "..."}}')
    if entry.get("type", "command") != "command":
        raise ConfigError(f'{where}.type {entry.get("type")!r} is not supported (flue runs "command" hooks)')
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip() or "\0" in command:
        raise ConfigError(f"{where}.command must be a non-empty shell command")
    timeout = entry.get("timeout", SESSION_END_TIMEOUT if event == "SessionEnd" else DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86400:
        raise ConfigError(f"{where}.timeout must be a number of seconds, more than 0")
    return Hook(event, matcher, command, float(timeout), origin)


SDK_ORIGIN = "the Agent SDK"


def sdk_hooks(table: Any) -> tuple[list[Hook], list[str]]:
    """The `hooks` of the SDK's initialize request, `{event: [{matcher, hookCallbackIds, timeout,
    onFailure}]}`, as Hooks answered over the control protocol, with one line per event flue does
    not run. Raises ValueError with one sentence for a bad shape (the request's error answer)."""
    if table is None:
        return [], []
    if not isinstance(table, dict):
        raise ValueError("initialize: hooks must be an object of events")
    out: list[Hook] = []
    skipped: list[str] = []
    for event, groups in table.items():
        if not isinstance(groups, list):
            raise ValueError(f"initialize: hooks.{event} must be a list of matchers")
        if event not in EVENTS:
            skipped.append(f"flue does not run {str(event)[:60]!r} hooks; the SDK's callbacks for it are not called.")
            continue
        for i, group in enumerate(groups):
            where = f"initialize: hooks.{event}[{i}]"
            if not isinstance(group, dict):
                raise ValueError(f"{where} must be an object with matcher and hookCallbackIds")
            matcher = group.get("matcher") or ""
            ids = group.get("hookCallbackIds")
            if not isinstance(matcher, str) or not isinstance(ids, list) or not all(isinstance(c, str) for c in ids):
                raise ValueError(f"{where} needs a string matcher and a list of callback ids")
            try:
                re.compile("" if matcher == "*" else matcher)
            except re.error as exc:
                raise ValueError(f"{where}.matcher is not a valid regular expression ({exc})") from None
            timeout = group.get("timeout") or DEFAULT_TIMEOUT
            if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 86400:
                raise ValueError(f"{where}.timeout must be a number of seconds, more than 0")
            blocks = group.get("onFailure") not in (None, "continue")  # Claude Code reads others as block
            out += [Hook(event, matcher, "", float(timeout), SDK_ORIGIN, cid[:200], blocks) for cid in ids]
    return out, skipped


def from_settings_file(path: Path, skipped: list[str] | None = None) -> list[Hook]:
    from flue_tui.config.files import read_json

    return _hooks_of(read_json(path), path, skipped)


def _hooks_of(data: Any, path: Path, skipped: list[str] | None) -> list[Hook]:
    if data is None:
        return []
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    return parse(data["hooks"], str(path), skipped) if "hooks" in data else []


def from_toml(path: Path, skipped: list[str] | None = None) -> list[Hook]:
    """`[hooks]` of flue's own config.toml (config/files.py has checked the TOML itself)."""
    from flue_tui.config.files import read_toml

    data = read_toml(path)
    return parse(data["hooks"], str(path), skipped) if data is not None and "hooks" in data else []


def _reads(sources: tuple[str, ...] | None, kind: str) -> bool:
    return sources is None or kind in sources


def load(settings: Any) -> HookSetup:
    """Every hook for these settings, with the notices (raises ConfigError for the user's own files)."""
    from flue_tui.config import trust
    from flue_tui.config.files import Unreadable, read_json, user_file

    sources = getattr(settings, "setting_sources", None)
    hooks: list[Hook] = []
    skipped: list[str] = []
    notices: list[str] = []
    if _reads(sources, "user"):
        for path, read in ((claude_dir() / "settings.json", from_settings_file), (user_file(), from_toml)):
            try:
                hooks += read(path, skipped)
            except Unreadable as exc:  # an optional file: skipped in one sentence, never a stop
                notices.append(str(exc))
    flag = getattr(settings, "settings_hooks", None)
    if flag is not None:
        hooks += parse(flag, "--settings", skipped)
    held: list[Hook] = []
    held_files: list[str] = []
    changed: list[str] = []
    cwd = getattr(settings, "cwd", os.getcwd())
    for rel, kind in zip(PROJECT_FILES, ("project", "local"), strict=True):
        if not _reads(sources, kind):
            continue
        # One read, judged and parsed: hashing one read and parsing another let a file swapped
        # in between run its hooks as trusted.
        snap = trust.read(cwd, rel)
        try:
            found = _hooks_of(read_json(snap.path, snap), snap.path, skipped)
        except Unreadable as exc:  # the same sentence as every reader of the file: shown once
            notices.append(str(exc))
            continue
        except ConfigError as exc:
            notices.append(f"Ignored the hooks of {rel}: {exc}")
            continue
        if not found:
            continue
        if getattr(settings, "trust_project", False) or snap.state == "trusted":
            hooks += found
        else:
            held += found
            held_files.append(rel)
            if snap.state == "changed":
                changed.append(rel)
    if held:
        why = (
            f"{', '.join(changed)} changed since you trusted this project"
            if changed
            else "you have not trusted this project"
        )
        notices.append(
            f"Not running the hooks of {', '.join(held_files)} because {why}: "
            f"{', '.join(sorted({h.event for h in held}))} (trust it by answering yes when flue asks, "
            "with flue trust, or with --trust-project)."
        )
    if skipped:
        notices.append(
            f"flue does not run these Claude Code hook events yet, so they are skipped: {'; '.join(skipped)}."
        )
    return HookSetup(tuple(hooks), tuple(notices), tuple(held), tuple(held_files))
