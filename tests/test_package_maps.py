"""Each package's `__init__.py` docstring is a map of the package, and stays true (issue 43).

Every module (`name.py`) and subpackage (`name/`) of a package is named in its docstring, and
every file or directory the docstring names exists there. Read with ast, so nothing is imported.
Another package's file is named as a module (`flue_tui.ui.commands`), not as a path.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "flue_tui"

# `name.py`, or a path to one inside the package (`screens/approval.py`), standing alone as a word.
FILE = re.compile(r"(?<![\w./~-])((?:\w+/)*\w+\.py)(?![\w])")
# `claude/`, `screens/`: a directory, not the head of a longer path (`~/.config/flue/skills`).
DIR = re.compile(r"(?<![\w./~<>-])((?:\w+/)+)(?![\w.])")
SKIPPED = {"__init__.py", "__main__.py"}


def packages(root: Path) -> list[Path]:
    """`root` and every package beneath it: the directories holding an `__init__.py`."""
    return sorted(p.parent for p in root.rglob("__init__.py") if "__pycache__" not in p.parts)


def docstring(package: Path) -> str:
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    return ast.get_docstring(tree) or ""


def named(text: str) -> list[str]:
    """What a map names, as it writes it: `x.py`, `sub/`, `other/x.py`."""
    return FILE.findall(text) + DIR.findall(text)


def problems(package: Path) -> tuple[list[str], list[str]]:
    """(what the package holds that its map leaves out, what its map names that is not there).

    Names are read from the package's directory: `sub/x.py` is in its subpackage `sub/`, and
    names that subpackage too.
    """
    names = named(docstring(package))
    modules = {p.name for p in package.glob("*.py") if p.name not in SKIPPED}
    subpackages = {p.name + "/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    covered = {n for n in names if "/" not in n} | {n.split("/")[0] + "/" for n in names if "/" in n}
    missing = sorted(modules - covered) + sorted(subpackages - covered)
    stale = sorted({n for n in names if not (package / n).exists()})
    return missing, stale


def test_every_package_map_names_what_is_there_and_only_that():
    found = packages(ROOT)
    assert len(found) > 20  # the walk sees the nested packages too (headless/claude, tui/widgets)
    report = []
    for package in found:
        missing, stale = problems(package)
        where = (package.relative_to(ROOT.parent) / "__init__.py").as_posix()
        if missing:
            report.append(f"{where} does not name: {', '.join(missing)}")
        if stale:
            report.append(f"{where} names what is gone: {', '.join(stale)}")
    assert not report, "package maps out of date (one line per module in the docstring):\n" + "\n".join(report)


def test_the_map_checker_sees_a_missing_and_a_stale_name(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "hidden").mkdir()
    (pkg / "sub" / "__init__.py").write_text('"""inner.py"""\n')
    (pkg / "sub" / "inner.py").write_text("")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.py").write_text("")  # another package's file is not this map's to name
    for name in ("a.py", "b.py", "__main__.py"):
        (pkg / name).write_text("")
    (pkg / "hidden" / "__init__.py").write_text('""""""\n')
    (pkg / "__init__.py").write_text(
        '"""The map.\n\na.py     one\ngone.py  two; sub/ and sub/inner.py inner ones, other/x.py elsewhere,\n'
        '~/.config/flue/skills and stdin/stdout are no names\n"""\n'
    )
    assert packages(tmp_path / "pkg") == [pkg, pkg / "hidden", pkg / "sub"]
    assert named(docstring(pkg)) == ["a.py", "gone.py", "sub/inner.py", "other/x.py", "sub/"]
    assert problems(pkg) == (["b.py", "hidden/"], ["gone.py", "other/x.py"])
    assert problems(pkg / "sub") == ([], [])
