"""What reading a shell command produces: its words, the simple commands it runs, the files it
writes, and the collector the reader fills (shared by the shell reader, its runners and git)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# Variables that change which program runs or what it loads: setting one is never harmless.
RISKY_VARIABLE = re.compile(
    r"^(PATH|IFS|ENV|BASH_ENV|BASHOPTS|SHELLOPTS|PS4|PROMPT_COMMAND|CDPATH|HOME|XDG_CONFIG_HOME|PAGER|"
    r"MANPAGER|EDITOR|VISUAL|BROWSER|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|NODE_OPTIONS|PERL5OPT|PERL5LIB|"
    r"RUBYOPT|RUBYLIB|NODE_PATH|PYTHONWARNINGS|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|CLASSPATH|GOFLAGS|RUSTC|"
    r"RUSTC_WRAPPER|GCONV_PATH|OPENSSL_CONF|LESSOPEN|LESSCLOSE|TAR_OPTIONS|SHELL|SSH_ASKPASS|SUDO_ASKPASS|"
    r"LD_\w*|DYLD_\w*|GIT_\w*|BASH_\w*|CARGO_\w*|(?i:npm_config_\w*))$"
)


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # after quote removal; an expansion stays as written (`$x`, `$(…)`)
    static: bool  # False when bash decides the value at run time (expansion, glob, brace)


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    argv: tuple[str, ...]
    assignments: tuple[str, ...] = ()  # VAR=value prefixes
    needs_rule: bool = True  # False: a runner or a no-op whose inner commands are listed themselves
    only_named: str | None = None  # only a rule whose pattern starts with this text allows it (git aliases)
    plain: str | None = None  # the command without options that do not change what it is (`git -C d push` → `git push`)
    dynamic: bool = False  # a word bash decides when it runs (`$x`, a glob): it could be any option

    @property
    def text(self) -> str:
        return " ".join(self.argv)

    def deny_subjects(self) -> list[str]:
        """The command as written, without its assignments, and by its program's bare name
        (`/bin/rm -rf x` → `rm -rf x`) so a deny rule sees every spelling."""
        name = self.argv[0].rsplit("/", 1)[-1] if self.argv else ""
        subjects = [" ".join((*self.assignments, *self.argv)), self.text]
        if name and name != self.argv[0]:
            subjects.append(" ".join((name, *self.argv[1:])))
        if self.plain:
            subjects.append(self.plain)
        return subjects


@dataclass(frozen=True, slots=True)
class Reading:
    commands: tuple[SimpleCommand, ...]
    writes: tuple[str, ...]  # files the command's redirections write
    unclear: tuple[str, ...]  # why no rule may allow it; one phrase each

    @property
    def needs_rules(self) -> tuple[SimpleCommand, ...]:
        return tuple(c for c in self.commands if c.needs_rule)


@dataclass(slots=True)
class Collector:
    commands: list[SimpleCommand] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    unclear: list[str] = field(default_factory=list)
    # How to read a script a command hands to a shell (`bash -c`, `eval`): the shell reader passes
    # itself here, so the runners can recurse into it without importing it back.
    reader: Callable[[str, Collector, int], None] | None = None

    def doubt(self, why: str) -> None:
        if why not in self.unclear:
            self.unclear.append(why)

    def read(self, source: str, depth: int) -> None:
        if self.reader is None:
            self.doubt("a nested script cannot be read here")
            return
        self.reader(source, self, depth)


def check_variable(name: str, out: Collector) -> None:
    """Setting PATH, LD_PRELOAD, GIT_* … changes what the commands run or load, which no rule sees."""
    if RISKY_VARIABLE.match(name):
        out.doubt(f"it sets {name}, which changes what programs run or load")
