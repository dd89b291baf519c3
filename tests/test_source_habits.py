"""Habits read from the source: comments and docstrings say why, never how fast.

A measured cost ("~18 ms", "~0.1 s of CPU", "1.7x faster", "3 MB of RSS") goes stale with the next
machine or the next release of a dependency, and a reader cannot re-measure a comment. Figures live
in bench/ and docs/benchmarks.md; the comment says what would be slower or delayed, and why. A
constant, a limit or the bound a comment explains ("at most 1 MiB", "every 5 ms") is no timing, and
nor is a user-visible string: only comments (tokenize) and docstrings (ast) are read.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "flue_tui"

# Files other work was changing when this check came in (issue 43): their comments are cleaned
# with that work, then the file leaves this list. Paths relative to flue_tui/; a trailing "/" is a
# whole package.
ALLOWED = (
    "headless/",
    "permissions/",
    "config/settings.py",
    "cli/flags.py",
    "core/classcode.py",
    "core/heap.py",
    "model/relay.py",
    "model/relay_main.py",
    "model/coalesce.py",
    "model/transport.py",
)

_NUM = r"[0-9][0-9.,]*"
TIMING = re.compile(
    rf"(?<![\w.]){_NUM} ?(?:ms|µs|μs|ns)\b"  # a duration in ms or µs
    rf"|~ ?{_NUM} ?(?:s|sec|seconds?|%|[kKMG]i?B)(?!\w)"  # an approximate duration, share or size
    rf"|(?<![\w.]){_NUM} ?(?:[kKMG]i?B|s) of (?:CPU|RSS|memory|heap|imports?|modules?|start)"
    rf"|(?<![\w.]){_NUM} ?(?:×|x|times) (?:faster|slower|the)\b"
    rf"|(?<![\w.]){_NUM}× "  # a ratio
    r"|\bseconds of (?:CPU|imports?|modules?|start|garbage|litellm)",
    re.IGNORECASE,
)
# What a bound reads like: the number follows one of these, so it states a limit, not a cost.
BOUND = re.compile(r"(?:\bevery|\bat most|\bup to|\bwithin|\bafter|\btimeout|\blimit|\bcap|=)\s*~?$", re.IGNORECASE)


def timings(text: str) -> list[tuple[int, str]]:
    """(line offset in `text`, matched phrase) for each measured timing `text` states."""
    hits = []
    for match in TIMING.finditer(text):
        if BOUND.search(text[max(0, match.start() - 20) : match.start()]):
            continue
        hits.append((text.count("\n", 0, match.start()), match.group(0)))
    return hits


def scan(path: Path) -> list[tuple[int, str]]:
    """(line, phrase) for every measured timing in `path`'s comments and docstrings."""
    source = path.read_text(encoding="utf-8")
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            found += [(tok.start[0] + off, hit) for off, hit in timings(tok.string)]
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                found += [(first.lineno + off, hit) for off, hit in timings(first.value.value)]
    return sorted(found)


def allowed(relative: str) -> bool:
    return any(relative.startswith(entry) if entry.endswith("/") else relative == entry for entry in ALLOWED)


def test_no_timings_in_comments_or_docstrings() -> None:
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if allowed(relative):
            continue
        offences += [f"flue_tui/{relative}:{line}: {hit!r}" for line, hit in scan(path)]
    assert not offences, (
        "Measured timings in comments or docstrings (say why instead; figures go in docs/benchmarks.md):\n"
        + "\n".join(offences)
    )


def test_the_scanner_finds_timings_and_spares_bounds(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""A module.\n'
        "\n"
        'Importing it costs ~50 ms of CPU."""\n'
        "\n"
        "LIMIT = 1 << 20  # at most 1 MiB: a bigger file is refused\n"
        "POLL_S = 0.005  # every 5 ms, so an abort is seen soon\n"
        "\n"
        "\n"
        "def f() -> str:\n"
        '    """Imported here: ~0.1 s of imports otherwise."""\n'
        "    import json  # with its helpers: ~2 ms of the start\n"
        "\n"
        '    return "took 30 ms"  # measured 1.7x faster than 4 MiB chunks\n'
        "\n"
        "\n"
        "class C:\n"
        '    """Its map (~3 MB of JSON) and a 40 MB of RSS peak; 3.5× the bare app; seconds of CPU."""\n',
        encoding="utf-8",
    )
    lines = [line for line, _hit in scan(sample)]
    assert lines == [3, 10, 11, 13, 17, 17, 17, 17]
    assert "took 30 ms" not in str(scan(sample))  # a string the user sees is not a comment
