"""Programs that run other programs, seen through for permission rules.

`nice -n 5 rm x`, `timeout 5 rm x`, `xargs rm`, `bash -c 'rm x'`, `eval 'rm x'`, `find . -exec rm {} +`,
`sudo rm x`: each yields the runner itself and the command it runs, so a deny rule for `rm` fires
and an allow rule must cover the inner command too. A runner that only changes how its command runs
(nice, timeout, xargs, bash -c …) needs no rule of its own when called by its plain name; one that
changes who or what runs it (sudo, env with settings, find) does. An option a runner is not known to
take makes the command unclear: asked, never allowed by a rule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from flue_tui.permissions.git import check_git
from flue_tui.permissions.shellwords import Collector, SimpleCommand, Word, check_variable

SHELLS = frozenset("sh bash dash zsh ksh mksh ash yash posh fish".split())
# Builtins that neither run a program nor touch a file (their redirections are judged separately).
HARMLESS = frozenset("true false : test [ set shift break continue return exit wait".split())
_STANDARD_DIRS = ("/bin/", "/usr/bin/")
MAX_RUNNERS = 32  # `nice nice nice … rm`: past this the command is called unclear
_UNKNOWN_INPUT = Word("…", False)  # the words xargs appends from its input


@dataclass(frozen=True, slots=True)
class Runner:
    short_arg: str = ""  # option letters that take a value (-n 5, -n5)
    short_flags: str = ""
    long_arg: frozenset[str] = frozenset()  # --signal KILL / --signal=KILL
    long_flags: frozenset[str] = frozenset()
    operands: int = 0  # words before the command (timeout's duration)
    needs_rule: bool = False  # it changes who runs the command: a rule must name it
    numeric: bool = False  # nice -5


def _f(words: str) -> frozenset[str]:
    return frozenset(words.split())


RUNNERS = {
    "nice": Runner("n", "", _f("adjustment"), numeric=True),
    "nohup": Runner(),
    "timeout": Runner("sk", "v", _f("signal kill-after"), _f("preserve-status foreground verbose"), operands=1),
    "time": Runner("of", "pavq", _f("output format"), _f("append verbose portability quiet")),
    "stdbuf": Runner("ioe", "", _f("input output error")),
    "builtin": Runner(),
    "exec": Runner("a", "cl"),
    "command": Runner("", "pvV"),
    "setsid": Runner("", "cfw", frozenset(), _f("ctty fork wait")),
    "busybox": Runner(),
    "coproc": Runner(),
    "sudo": Runner(
        "ugCDhprtTU",
        "AbEHKklnPSsVv",
        _f("user group chdir close-from host prompt role type command-timeout other-user"),
        _f(
            "askpass background preserve-env set-home login "
            "non-interactive preserve-groups stdin shell reset-timestamp remove-timestamp"
        ),
        needs_rule=True,
    ),
    "doas": Runner("uC", "nLs", needs_rule=True),
    "ionice": Runner("cnpu", "t", _f("class classdata pid pgid uid")),
    "chroot": Runner("", "", _f("userspec groups"), _f("skip-chdir"), operands=1, needs_rule=True),
}


def expand(words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int) -> None:
    """Record the command `words` and whatever it runs."""
    argv = tuple(w.text for w in words)
    name = words[0]
    if depth > MAX_RUNNERS:
        out.doubt("commands nested too deeply to follow")
    if not name.static or depth > MAX_RUNNERS:
        if not name.static:
            out.doubt(f"the program's name ({_short(name.text)}) is only known when it runs")
        out.commands.append(SimpleCommand(argv, assignments))
        return
    start = len(out.commands)
    _dispatch(name.text.rsplit("/", 1)[-1], words, assignments, out, depth)
    if "/" in name.text and not name.text.startswith(_STANDARD_DIRS):
        # ./nice or /tmp/env is a program of its own that only looks like a runner: it needs a rule,
        # while deny rules still see what the real one would run.
        for k in range(start, len(out.commands)):
            if out.commands[k].argv == argv:
                out.commands[k] = replace(out.commands[k], needs_rule=True)
                break


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"


def _dispatch(prog: str, words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int) -> None:
    argv = tuple(w.text for w in words)
    if prog == "coproc":
        out.doubt("coproc bodies are not read by the shell parser")  # tree-sitter-bash has no coproc
    if prog in RUNNERS:
        _run_wrapped(prog, RUNNERS[prog], words, assignments, out, depth)
    elif prog == "env":
        _env(words, assignments, out, depth)
    elif prog in SHELLS:
        _shell(words, assignments, out, depth)
    elif prog in ("eval", "trap"):
        out.commands.append(SimpleCommand(argv, assignments, needs_rule=False))
        args = words[2:] if words[1:2] and words[1].text == "--" else words[1:]
        if prog == "eval":
            _script(args, out, depth, "eval")
        elif len(args) >= 2 and args[0].text not in ("-", "") and not args[0].text.startswith("-"):
            _script(args[:1], out, depth, "trap")  # the action runs later, as a command of its own
    elif prog == "xargs":
        _xargs(words, assignments, out, depth)
    elif prog == "find":
        _find(words, assignments, out, depth)
    elif prog == "watch":
        out.commands.append(SimpleCommand(argv, assignments))  # its interval options are too varied to skip
        out.doubt("watch runs its arguments as a new command")
    else:
        dynamic = not all(w.static for w in words)
        out.commands.append(SimpleCommand(argv, assignments, needs_rule=prog not in HARMLESS, dynamic=dynamic))
        if prog in ("test", "[", "printf") and any(
            w.text in ("-v", "-R") and (k + 1 < len(words) and not words[k + 1].static) for k, w in enumerate(words)
        ):
            out.doubt(f"{prog} -v with a name known only when it runs can run a command hidden in it")
        elif prog in ("su", "runuser", "script", "flock"):
            _dash_c(prog, words, out, depth)
        if prog == "git":
            check_git(words, out)
        elif prog in ("source", ".") and any(
            not w.static or w.text == "-" or w.text.startswith("/dev/") for w in words[1:2]
        ):
            out.doubt(f"{prog} reads commands known only when it runs")


def _skip_options(r: Runner, words: list[Word], i: int, out: Collector, prog: str) -> int | None:
    """Index of the first word after `prog`'s own options and operands, or None if one is unknown."""
    while i < len(words):
        t = words[i].text
        if t == "--":
            i += 1
            break
        if not t.startswith("-") or t == "-":
            break
        if not words[i].static:
            out.doubt(f"{prog} has an option known only when it runs")
            return None
        if t.startswith("--"):
            key = t[2:].split("=", 1)[0]
            if key in r.long_arg:
                i += 1 if "=" in t else 2
                continue
            if key in r.long_flags:
                i += 1
                continue
        elif r.numeric and t[1:].isdigit():
            i += 1
            continue
        else:
            letters = t[1:]
            for j, ch in enumerate(letters):
                if ch in r.short_arg:
                    i += 1 if j + 1 < len(letters) else 2
                    break
                if ch not in r.short_flags:
                    out.doubt(f"{prog} {_short(t)}: an option flue does not know")
                    return None
            else:
                i += 1
            continue
        out.doubt(f"{prog} {_short(t)}: an option flue does not know")
        return None
    return min(i + r.operands, len(words))  # a missing option value or operand leaves nothing to run


def _run_wrapped(
    prog: str, r: Runner, words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int
) -> None:
    start = _skip_options(r, words, 1, out, prog)
    lookup_only = prog == "command" and any(w.text in ("-v", "-V") for w in words[1 : start or 1])
    inner = words[start:] if start is not None and not lookup_only else []
    # A runner with nothing to run (`exec 3>&1`, `command -v rm`) is as harmless as its redirections.
    needs = r.needs_rule or (not inner and prog not in ("exec", "command", "time"))
    out.commands.append(SimpleCommand(tuple(w.text for w in words), assignments, needs_rule=needs))
    if inner:
        expand(inner, (), out, depth + 1)


def _env(words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int) -> None:
    """env's own settings are like VAR=value prefixes; -S (a string split into a command) is unclear."""
    r = Runner("uC", "i0v", _f("unset chdir"), _f("ignore-environment null debug"))
    i = _skip_options(r, words, 1, out, "env")
    if i is not None and i < len(words) and words[i].text == "-":  # `env - cmd` is `env -i cmd`
        i += 1
    while i is not None and i < len(words) and "=" in words[i].text.lstrip("="):
        check_variable(words[i].text.split("=", 1)[0], out)
        i += 1
    inner = words[i:] if i is not None else []
    out.commands.append(SimpleCommand(tuple(w.text for w in words), assignments, needs_rule=not inner))
    if inner:
        expand(inner, (), out, depth + 1)


def _dash_c(prog: str, words: list[Word], out: Collector, depth: int) -> None:
    """`su -c SCRIPT`, `script -c SCRIPT`, `flock FILE -c SCRIPT`: the script is read like `bash -c`'s."""
    for k, w in enumerate(words[1:], 1):
        t = w.text
        if t in ("-c", "--command") and k + 1 < len(words):
            _script(words[k + 1 : k + 2], out, depth, f"{prog} -c")
        elif t.startswith("--command="):
            _script([Word(t.split("=", 1)[1], w.static)], out, depth, f"{prog} -c")
        elif t.startswith("-") and not t.startswith("--") and t.endswith("c") and len(t) > 2 and k + 1 < len(words):
            _script(words[k + 1 : k + 2], out, depth, f"{prog} -c")  # su -lc 'cmd'


def _script(words: list[Word], out: Collector, depth: int, what: str) -> None:
    """Read the text a shell or eval will run; with expansions in it, read it as written (so deny
    rules see `rm` in `bash -c "rm $X"`), but it stays unclear."""
    if not all(w.static for w in words):
        out.doubt(f"{what} runs text known only when it runs")
    out.read(" ".join(w.text for w in words), depth + 1)


def _shell(words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int) -> None:
    """`bash -c SCRIPT` is read like the command itself; `bash file` runs a file no rule has seen."""
    i, script, stdin, extra = 1, False, False, False
    while i < len(words):
        t = words[i].text
        if t in ("--", "-"):
            i += 1
            break
        if t in ("--rcfile", "--init-file"):
            extra, i = True, i + 2
            continue
        if t.startswith("--"):
            extra = extra or t not in ("--norc", "--noprofile", "--posix")
            i += 1
            continue
        if not t.startswith(("-", "+")) or not words[i].static:
            break
        letters = t[1:]
        script = script or (t[0] == "-" and "c" in letters)
        stdin = stdin or "s" in letters
        extra = extra or any(ch not in "ceuxvo" for ch in letters)
        i += 2 if letters.endswith(("o", "O")) else 1
    argv = tuple(w.text for w in words)
    if script:
        out.commands.append(SimpleCommand(argv, assignments, needs_rule=extra))
        if i >= len(words):
            out.doubt(f"{words[0].text} -c without a command")
        else:
            _script(words[i : i + 1], out, depth, f"{words[0].text} -c")
        return
    out.commands.append(SimpleCommand(argv, assignments))
    if stdin or i >= len(words) or words[i].text.startswith(("/dev/", "/proc/")):
        out.doubt(f"{words[0].text} reads commands from its input")
    elif not words[i].static:
        out.doubt(f"{words[0].text} runs a script known only when it runs")


def _xargs(words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int) -> None:
    r = Runner(
        "adEILnPs",
        "0oprtx",
        _f("arg-file delimiter max-lines max-args max-procs max-chars process-slot-var"),
        _f("null no-run-if-empty open-tty interactive verbose exit show-limits"),
    )
    replace = None
    for w in words[1:]:
        t = w.text
        if not t.startswith("-") or t == "--":
            break
        if t.startswith(("-i", "--replace")):
            replace = t.split("=", 1)[1] if "=" in t else (t[2:] or "{}") if t.startswith("-i") else "{}"
        elif t.startswith("-I"):
            replace = t[2:] or None  # the next word; found below
    # -i/-e/-l take their value attached only; rewrite them so the generic parser skips them.
    cleaned = [
        w if not w.text.startswith(("-i", "-e", "-l", "--replace", "--eof", "--max-lines")) else Word("-p", True)
        for w in words
    ]
    start = _skip_options(r, cleaned, 1, out, "xargs")
    if start is None:
        out.commands.append(SimpleCommand(tuple(w.text for w in words), assignments))
        return
    for j in range(1, start):
        if words[j].text == "-I" and j + 1 < len(words):
            replace = words[j + 1].text
    out.commands.append(SimpleCommand(tuple(w.text for w in words), assignments, needs_rule=False))
    inner = list(words[start:]) or [Word("echo", True)]
    if replace:
        inner = [Word(w.text, w.static and replace not in w.text) for w in inner]
    else:
        inner.append(_UNKNOWN_INPUT)
    expand(inner, (), out, depth + 1)


def _find(words: list[Word], assignments: tuple[str, ...], out: Collector, depth: int) -> None:
    """find itself needs a rule; each -exec/-execdir/-ok/-okdir command is checked as well."""
    dynamic = not all(w.static for w in words)
    out.commands.append(SimpleCommand(tuple(w.text for w in words), assignments, dynamic=dynamic))
    i = 1
    while i < len(words):
        if words[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            inner = [Word(w.text, w.static and "{}" not in w.text) for w in words[i + 1 : j]]
            if inner:
                expand(inner, (), out, depth + 1)
            i = j
        i += 1
