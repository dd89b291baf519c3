"""Command checks of `--sandbox workspace`: the flux seed's twelve baseline checks plus a blocklist.

Every bash command passes them before anything is spawned; a hit refuses the call with a text that
names the rule. They are patterns over the command text, not a shell parser: a determined command
can slip past them, which is why bash also runs inside bubblewrap where it is installed.

Words that are only dangerous as commands (`dd`, `reboot`, `sudo`) are matched in command
position, so `grep dd file` and `echo reboot` stay allowed.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

# Where a command word may start: line start, after a separator or an opening substitution, after
# `-c "` (bash -c), optionally behind wrappers that run their arguments as a command.
_CMD = (
    r"(?:^|[;&|\n(`{]|\$\(|-c\s+['\"])\s*"
    r"(?:(?:sudo|doas|env|exec|nohup|command|builtin|time|nice|xargs|timeout\s+\S+)\s+(?:-\S+\s+)*)*"
    r"(?:\S*/)?"
)
_SEP = r"[^;&|\n]*"  # the rest of one simple command


def _cmd(words: str) -> str:
    return rf"{_CMD}(?:{words})(?![\w.-])"


@dataclass(frozen=True, slots=True)
class CommandRule:
    """A pattern of the bash blocklist, and why a command that matches it is refused."""

    name: str
    reason: str
    source: str
    flags: int = re.IGNORECASE

    @property
    def pattern(self) -> re.Pattern[str]:
        # Compiled when first matched, not when imported: compiling the baseline would sit in
        # every start (the permission scope imports the workspace sandbox), most of which never
        # run `--sandbox workspace`.
        return _compiled(self.source, self.flags)

    def refusal(self) -> str:
        return f'Command blocked by workspace sandbox rule "{self.name}": {self.reason}. Nothing was run.'


@functools.cache
def _compiled(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


def _rule(name: str, reason: str, pattern: str, flags: int = re.IGNORECASE) -> CommandRule:
    return CommandRule(name, reason, pattern, flags)


_PROTECTED = (
    r"(?:~|\$HOME|\S*/)?(?:\.env\b|\.ssh(?:/|\b)|\.gnupg\b|\.aws/|\.netrc\b|\.git-credentials\b"
    r"|\.bashrc\b|\.bash_profile\b|\.profile\b|\.zshrc\b|\.gitconfig\b|id_rsa|id_ed25519|credentials)"
)

# The seed's twelve baseline checks, in its order. Names are what refusals and tests refer to.
BASELINE: tuple[CommandRule, ...] = (
    _rule(
        "fork-bomb",
        "fork bomb detected",
        r"(\b\w+\b|:)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1|\$0\s*\|?\s*&\s*\$0|fork\s+while\s+fork",
    ),
    _rule(
        "destructive-disk",
        "destructive disk command detected",
        _cmd(r"mkfs(?:\.\w+)?|wipefs|fdisk|sfdisk|parted")
        + r"|"
        + _cmd("dd")
        + _SEP
        + r"\b(?:if=/dev/(?:zero|u?random)|of=/dev/)"
        + r"|>\s*/dev/(?:sd|hd|nvme|vd|xvd|mmcblk)"
        + r"|"
        + _cmd("rm")
        + r"\s+(?:-\S+\s+)*(?:--no-preserve-root|(?:/|/\*|~/?|\$HOME/?)(?=\s|$|;|&|\|))",
    ),
    _rule(
        "system-control",
        "system control command detected",
        _cmd(r"shutdown|reboot|halt|poweroff|init\s+[06]")
        + r"|"
        + _cmd("systemctl")
        + _SEP
        + r"\b(?:poweroff|halt|reboot|kexec)\b",
    ),
    _rule(
        "protected-file",
        "write to a protected file detected",
        r"(?:[0-9&]?>>?|>\|)\s*['\"]?"
        + _PROTECTED
        + r"|"
        + _cmd(r"rm|cp|mv|chmod|chown|tee|truncate|ln|install|sed\s+-i\S*")
        + _SEP
        + _PROTECTED,
    ),
    _rule(
        "path-traversal",
        "path traversal outside the workspace detected",
        r"\.\.[/\\]|[/\\]\.\.(?![^\s;&|])|(?:^|\s)\.\.(?=\s|$|;|&|\|)|%2e%2e|\.\.%2f|%2e\.[/\\]",
    ),
    _rule(
        "download-exec",
        "download piped into an interpreter detected",
        _cmd(r"curl|wget|fetch|http|https|aria2c")
        + _SEP
        + r"\|\s*(?:sudo\s+)?(?:\S*/)?(?:ba|z|da|k|fi)?sh\b|"
        + _cmd(r"curl|wget|fetch|http|https|aria2c")
        + _SEP
        + r"\|\s*(?:\S*/)?(?:python\d*(?:\.\d+)?|perl|ruby|node|php)\b"
        + r"|(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b|(?:ba|z)?sh\s+-c\s+['\"]?\$\(\s*(?:curl|wget)\b",
    ),
    _rule("unicode-control", "control or invisible formatting character detected", r"(?!)"),
    _rule("ifs-injection", "IFS or null-byte injection detected", r"\bIFS\s*=|\x00"),
    _rule(
        "env-override",
        "dangerous environment variable override detected",
        r"(?<![\w$])(?:LD_PRELOAD|LD_LIBRARY_PATH|LD_AUDIT|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH|PATH)\s*=",
    ),
    _rule(
        "privilege-escalation",
        "privilege escalation detected",
        _cmd(r"sudo|su|doas|pkexec|newgrp|runuser")
        + r"(?=\s|$|;|&|\|)"
        + r"|"
        + _cmd("chmod")
        + _SEP
        + r"(?:\b[0-7]?777\b|\b[ugoa]*\+[rwx]*s|a\+rwx|o\+w)"
        + r"|"
        + _cmd("chown")
        + _SEP
        + r"\broot\b",
    ),
    _rule(
        "reverse-shell",
        "network listener or reverse shell detected",
        r"/dev/(?:tcp|udp)/|" + _cmd(r"ncat|socat|telnet") + r"|" + _cmd(r"nc|netcat") + _SEP + r"\s-[a-z]*[lec]",
    ),
    _rule(
        "crypto-mining",
        "crypto mining tool detected",
        _cmd(r"xmrig|minerd|cpuminer|ethminer|cgminer|bfgminer|nbminer") + r"|stratum\+(?:tcp|ssl|tls)://",
    ),
)

# The seed's default blocklist (seven patterns), reworded to match in command position.
DEFAULT_BLOCKLIST: tuple[tuple[str, str], ...] = (
    ("rm-rf-root", r"\brm\s+-(?:rf|fr|Rf|fR)\s+/(?:\*)?(?:\s|$)"),
    ("mkfs", _cmd(r"mkfs(?:\.\w+)?")),
    ("dd", _cmd("dd") + r"(?=\s|$)"),
    ("shutdown", _cmd("shutdown")),
    ("reboot", _cmd("reboot")),
    ("fork-bomb-function", r":\s*\(\s*\)\s*\{"),
    ("write-to-disk-device", r">\s*/dev/sd"),
)


def _unicode_control(command: str) -> bool:
    for ch in command:
        code = ord(ch)
        if (code < 0x20 and ch not in "\t\n\r") or code == 0x7F:
            return True
        if code > 0x7F and unicodedata.category(ch) in ("Cf", "Cc"):
            return True  # zero-width and bidi controls hide what a command really says
    return False


class CommandChecker:
    """The baseline checks plus a blocklist of (name, regex) pairs; `check` returns a refusal or None."""

    def __init__(self, blocklist: Iterable[tuple[str, str]] = DEFAULT_BLOCKLIST) -> None:
        rules = []
        for name, pattern in blocklist:
            # Configured patterns compile as written (add `(?i)` for case-insensitive), like the seed's.
            rules.append(_rule(f"blocklist:{name}", f"matches the blocklist pattern {pattern!r}", pattern, 0))
            rules[-1].pattern  # a pattern that does not compile fails here, as the checker is made  # noqa: B018
        self.blocklist: tuple[CommandRule, ...] = tuple(rules)

    def check(self, command: str) -> str | None:
        rule = self.match(command)
        return rule.refusal() if rule is not None else None

    def match(self, command: str) -> CommandRule | None:
        for rule in BASELINE:
            if rule.name == "unicode-control":
                if _unicode_control(command):
                    return rule
            elif rule.pattern.search(command):
                return rule
        for rule in self.blocklist:
            if rule.pattern.search(command):
                return rule
        return None


def blocklist_from(patterns: Iterable[str], *, defaults: bool = True) -> list[tuple[str, str]]:
    """Configured regexes appended to (or, with defaults=False, replacing) the default blocklist."""
    extra = []
    for i, pattern in enumerate(patterns, 1):
        re.compile(pattern)  # the caller turns re.error into a config error naming the key
        extra.append((f"custom-{i}", pattern))
    return [*(DEFAULT_BLOCKLIST if defaults else ()), *extra]
