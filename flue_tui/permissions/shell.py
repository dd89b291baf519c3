"""Reading a bash command the way bash will run it, for permission rules.

tree-sitter-bash parses the command; every simple command anywhere in the tree (pipelines, lists,
loops, conditionals, functions, subshells, `$(…)`, backticks, `<(…)`) becomes a `SimpleCommand`
with its words after quote removal, and runners.py looks through the programs that run other
programs (`bash -c`, `eval`, `env`, `nice`, `xargs`, `find -exec`, …). What cannot be judged from
the text (a parse error, a command name that is only known when it runs) is listed in `unclear`:
such a command is asked, never allowed by a rule, while deny rules still see every part they can.

tree-sitter is imported on first use, so `flue --help` does not pay for it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from flue_tui.permissions.runners import expand
from flue_tui.permissions.shellwords import (
    Collector as Collector,  # re-exported: callers read a command with these
)
from flue_tui.permissions.shellwords import (
    Reading as Reading,
)
from flue_tui.permissions.shellwords import (
    SimpleCommand as SimpleCommand,
)
from flue_tui.permissions.shellwords import (
    Word as Word,
)
from flue_tui.permissions.shellwords import (
    check_variable,
)

MAX_DEPTH = 8  # nested `bash -c "eval '…'"` levels before the command is called unclear
_GLOB = re.compile(r"(?<!\\)[*?\[]")
_BRACES = re.compile(r"(?<!\\)\{[^{}]*(,|\.\.)[^{}]*\}")  # {a,b} and {1..3} expand; {} does not
_WRITE_OPS = (">", ">>", ">|", "&>", "&>>", "<>", ">&")
_NETWORK_TARGETS = re.compile(r"^/dev/(tcp|udp)/")
_HARMLESS_TARGETS = re.compile(r"^(/dev/(null|stdout|stderr|tty|fd/\d+)|&?-|\d+)$")
_CODE_SHAPED = re.compile(r"\[.*(\$\(|`)", re.DOTALL)
# [[ … ]] operators that evaluate their operands as arithmetic (or, -v, an array subscript).
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-v", "-R"})
_VARIABLE_NODES = frozenset({"variable_name", "simple_expansion", "expansion", "command_substitution"})


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


@lru_cache(maxsize=128)
def read_command(source: str) -> Reading:
    """Every simple command `source` runs, the files it redirects into, and what stays unclear."""
    out = Collector(reader=read_into)
    read_into(source, out, 0)
    return Reading(tuple(out.commands), tuple(dict.fromkeys(out.writes)), tuple(out.unclear))


def read_into(source: str, out: Collector, depth: int) -> None:
    """Parse `source` (a whole command, or a script handed to `bash -c`/`eval`) into `out`."""
    if "\\\n" not in source:
        _walk(source, out, depth)
        return
    # tree-sitter reads `r\<newline>m` as two words where bash joins them into `rm`: read it joined
    # as well; if that tells a different story, deny rules see both and no rule allows it.
    split, joined = Collector(reader=read_into), Collector(reader=read_into)
    _walk(source, split, depth)
    _walk(source.replace("\\\n", ""), joined, depth)
    for part in (split, joined) if split.commands != joined.commands else (split,):
        out.commands.extend(part.commands)
        out.writes.extend(part.writes)
        for why in part.unclear:
            out.doubt(why)
    if split.commands != joined.commands:
        out.doubt("a line continuation splits a word")


def _walk(source: str, out: Collector, depth: int) -> None:
    if depth > MAX_DEPTH:
        out.doubt("commands nested too deeply to follow")
        return
    if "\0" in source:
        out.doubt("it contains a NUL byte")
        source = source.replace("\0", " ")
    data = source.encode("utf-8", "surrogatepass")
    root = _parser().parse(data).root_node
    if root.has_error:  # an ERROR or a missing token anywhere; the parts that did parse are still read
        out.doubt("part of it does not parse as shell")
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "command":
            words, assignments = _command_words(node)
            if words:
                expand(words, tuple(assignments), out, depth)
            for name in _assigned_names(node):
                check_variable(name, out)
        elif kind == "variable_assignment" and node.parent is not None and node.parent.type != "command":
            check_variable(_assigned_name(node), out)
        elif kind == "for_statement" and (var := node.child_by_field_name("variable")) is not None:
            check_variable(var.text.decode(errors="replace"), out)
        elif kind == "file_redirect":
            _redirect(node, out)
        elif (
            kind in ("raw_string", "string_content", "word")
            and b"[" in node.text
            and _CODE_SHAPED.search(word_of(node).text)
        ):
            out.doubt("quoted text shaped like a[$(cmd)] can run cmd where bash reads it as a variable")
        elif (
            kind == "subscript"
            and (index := node.child_by_field_name("index")) is not None
            and not (index.text.isdigit() or index.text in (b"@", b"*"))
        ):
            # An indexed array's subscript is arithmetic: `arr[i]` evaluates i's value, and
            # `a[$(cmd)]` in that value runs cmd.
            out.doubt("an array subscript is arithmetic, which can run a command hidden in a variable")
        elif (
            kind in ("arithmetic_expansion", "c_style_for_statement")
            or (kind == "compound_statement" and node.child_count and node.children[0].type == "((")
            or (kind == "test_command" and _arithmetic_test(node))
        ):
            # Arithmetic evaluates a variable's value as an expression, and `a[$(cmd)]` in that value
            # runs cmd: code no rule can see.
            if _mentions_variable(node):
                out.doubt("arithmetic on a variable can run a command hidden in its value")
        elif kind == "heredoc_body" and b"`" in node.text and _expands(node):
            # tree-sitter reads `$(…)` in a here-document but not backticks, which bash runs too
            out.doubt("a here-document runs a backtick command")
        elif kind == "expansion" and b"@P" in node.text:
            out.doubt("${…@P} runs commands found in a variable's value")
        elif kind == "declaration_command" and any(
            c.type == "word" and c.text.startswith(b"-") and (b"i" in c.text or b"n" in c.text) for c in node.children
        ):
            out.doubt("declare -i/-n evaluates or redirects variables")
        stack.extend(reversed(node.named_children))  # tokens (`;`, `$(`, quotes) decide nothing here


def _expands(body: Any) -> bool:
    """Whether bash expands this here-document's body: its delimiter is not quoted at all."""
    start = next((c for c in body.parent.children if c.type == "heredoc_start"), None) if body.parent else None
    return start is None or not any(q in start.text for q in (b"'", b'"', b"\\"))


def _command_words(node: Any) -> tuple[list[Word], list[str]]:
    words: list[Word] = []
    assignments: list[str] = []
    for i, child in enumerate(node.children):
        role = node.field_name_for_child(i)
        if child.type == "variable_assignment":
            assignments.append(child.text.decode(errors="replace"))
        elif role == "name":
            words.append(word_of(child.children[0] if child.child_count else child))
        elif role == "argument":
            words.append(word_of(child))
    return words, assignments


def _assigned_name(node: Any) -> str:
    name = node.child_by_field_name("name")
    if name is not None and name.type == "subscript":
        name = name.child_by_field_name("name")
    return name.text.decode(errors="replace") if name is not None else ""


def _assigned_names(node: Any) -> list[str]:
    return [_assigned_name(c) for c in node.children if c.type == "variable_assignment"]


def _mentions_variable(node: Any) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in _VARIABLE_NODES:
            return True
        stack.extend(n.children)
    return False


def _arithmetic_test(node: Any) -> bool:
    stack, arithmetic = [node], False
    while stack:
        n = stack.pop()
        arithmetic = arithmetic or (n.type == "test_operator" and n.text.decode(errors="replace") in _ARITHMETIC_TESTS)
        stack.extend(n.children)
    return arithmetic


def _redirect(node: Any, out: Collector) -> None:
    ops = [c.type for c in node.children if not c.is_named]
    dest = node.child_by_field_name("destination")
    if dest is None:
        return
    target = word_of(dest)
    # bash itself connects for /dev/tcp/HOST/PORT and /dev/udp/…, whichever way the arrow points,
    # so even `cat < /dev/tcp/…` reaches the network; a name read from, known only at run time,
    # may be one (one written to is a write to an unknown file, which asks already).
    writes = any(op in _WRITE_OPS for op in ops)
    if _NETWORK_TARGETS.match(target.text) or not (target.static or writes):
        out.doubt("a redirection bash may turn into a network connection")
    elif writes and not (target.static and _HARMLESS_TARGETS.match(target.text)):
        out.writes.append(target.text)


_QUOTED_ESCAPE = re.compile(r'\\([$`"\\])|\\\n')  # only these lose their backslash in "…"
_ESCAPE = re.compile(r"\\\n|\\(.)", re.DOTALL)


def _unescape(raw: str, inside_double_quotes: bool = False) -> str:
    if "\\" not in raw:
        return raw
    return (_QUOTED_ESCAPE if inside_double_quotes else _ESCAPE).sub(lambda m: m.group(1) or "", raw)


_C_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def _ansi_c(body: str) -> Word:
    """$'…': decode what bash decodes; anything else makes the word unknown rather than wrong."""
    out, i = [], 0
    pattern = re.compile(
        r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|"
        r"U([0-9a-fA-F]{1,8}))"
    )
    while i < len(body):
        if body[i] != "\\":
            out.append(body[i])
            i += 1
            continue
        m = pattern.match(body, i)
        if m is None:
            return Word(body, False)
        simple, octal, hx, u4, u8 = m.groups()
        try:
            out.append(_C_ESCAPES[simple] if simple else chr(int(octal, 8)) if octal else chr(int(hx or u4 or u8, 16)))
        except (ValueError, OverflowError):
            return Word(body, False)
        i = m.end()
    return Word("".join(out), True)


def word_of(node: Any) -> Word:
    """The value of one shell word: quotes removed, escapes decoded; expansions keep their text."""
    raw = node.text.decode(errors="replace")
    kind = node.type
    if kind == "word":
        return Word(_unescape(raw), not _GLOB.search(raw) and not _BRACES.search(raw))
    if kind == "number":
        return Word(raw, True)
    if kind == "raw_string":
        return Word(raw[1:-1], True)
    if kind == "ansi_c_string":
        return _ansi_c(raw[2:-1])
    if kind in ("string", "concatenation"):
        parts = [c for c in node.children if c.type != '"']
        if kind == "string":
            values = [
                Word(_unescape(c.text.decode(errors="replace"), True), True)
                if c.type == "string_content"
                else word_of(c)
                for c in parts
            ]
        else:
            values = [word_of(c) for c in parts]
            if _BRACES.search(raw):
                return Word(raw, False)
        return Word("".join(v.text for v in values), all(v.static for v in values))
    return Word(raw, False)  # $x, ${x}, $(…), `…`, <(…), $((…)), {a,b}, $"…"
