"""Issue 24's size metrics of the flue_tui package: modules, the largest function, and `Any`.

Usage: uv run python bench/code_metrics.py [GIT_REF ...]
Prints the working tree's numbers, and each GIT_REF's (read from `git archive`, nothing checked out)
beside them with the ratio now/then, so a before/after is one reproducible command:
    uv run python bench/code_metrics.py dea31e1
Not a speed benchmark (run_all.py does not run it): these numbers are counts, the same on any machine.

* modules: the .py files under flue_tui/ (package __init__ files included).
* largest function: the most lines from a def's first line to its last (nested defs counted in
  their parent too, as a reader meets them), with where it is.
* Any: every `Any` name token outside import statements (annotations in strings included).
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tarfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "flue_tui"


@dataclass(frozen=True, slots=True)
class Metrics:
    modules: int
    largest: int
    largest_at: str
    any_count: int


def any_tokens(source: str) -> int:
    count, in_import, words = 0, False, []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            in_import, words = False, []
            continue
        if tok.type == tokenize.NAME and not words:
            in_import = tok.string in ("import", "from")
        if tok.type in (tokenize.NAME, tokenize.OP):
            words.append(tok.string)
        if in_import:
            continue
        if tok.type == tokenize.NAME and tok.string == "Any":
            count += 1
        elif tok.type == tokenize.STRING:  # "dict[str, Any]" as a quoted annotation
            count += sum(1 for t in _names(tok.string) if t == "Any")
    return count


ANNOTATION = re.compile(r"""^[rb]?(['"])[\w\[\], .|]*\1$""")


def _names(literal: str) -> list[str]:
    """The names in a string that reads as an annotation ("dict[str, Any]"), else none."""
    return re.findall(r"\w+", literal) if ANNOTATION.match(literal) else []


def measure(files: dict[str, str]) -> Metrics:
    largest, where, anys = 0, "", 0
    for name, source in sorted(files.items()):
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                size = (node.end_lineno or node.lineno) - first + 1
                if size > largest:
                    largest, where = size, f"{name}:{node.lineno} {node.name}"
        anys += any_tokens(source)
    return Metrics(len(files), largest, where, anys)


def working_tree() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in (ROOT / PACKAGE).rglob("*.py")}


def at_ref(ref: str) -> dict[str, str]:
    raw = subprocess.run(["git", "archive", ref, PACKAGE], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        return {
            m.name: tar.extractfile(m).read().decode("utf-8")  # type: ignore[union-attr]  # a regular file
            for m in tar.getmembers()
            if m.isfile() and m.name.endswith(".py")
        }


def main(refs: list[str]) -> int:
    now = measure(working_tree())
    print(f"now: {now.modules} modules, largest function {now.largest} lines ({now.largest_at}), Any {now.any_count}")
    for ref in refs:
        then = measure(at_ref(ref))
        print(
            f"{ref}: {then.modules} modules, largest function {then.largest} lines ({then.largest_at}), "
            f"Any {then.any_count}"
        )
        print(
            f"ratio now/{ref}: modules {now.modules / then.modules:.2f}, largest function "
            f"{now.largest / then.largest:.2f}, Any {now.any_count / max(then.any_count, 1):.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
