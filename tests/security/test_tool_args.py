"""Model-chosen arguments never become options of the programs the search tools run.

`glob` with path "-delete" used to run `find '-delete' -type f -name '*.py'`, which deletes the
whole tree (plan mode and `--sandbox workspace` included) and answers "No files found".
"""

from __future__ import annotations

import os

import pytest

from flue_tui.core.abort import AbortSignal, ToolError
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.sandbox.workspace import WorkspaceSandbox
from flue_tui.tools.base import ToolContext
from flue_tui.tools.glob import NO_FILES, GlobTool
from flue_tui.tools.grep import GrepTool
from flue_tui.tools.truncate import path_operand

# Each of these, given to find as its first operand, starts the expression instead.
FIND_EXPRESSIONS = ["-delete", "-fprint", "-exec", "(", "!", ")", ",", "-okdir"]


def ctx() -> ToolContext:
    return ToolContext("call-1", AbortSignal())


def _tree(root) -> set[str]:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("foo = 1\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "notes.txt").write_text("foo\n")
    return _files(root)


def _files(root) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}


def _sandboxes(tmp_path):
    return [LocalSandbox(str(tmp_path)), WorkspaceSandbox(str(tmp_path), root=str(tmp_path))]


@pytest.mark.parametrize("kind", ["local", "workspace"])
@pytest.mark.parametrize("path", FIND_EXPRESSIONS)
async def test_glob_path_never_becomes_a_find_action(tmp_path, kind, path):
    before = _tree(tmp_path)
    sandbox = _sandboxes(tmp_path)[kind == "workspace"]
    result = await GlobTool(sandbox).execute({"pattern": "*.py", "path": path}, ctx())
    assert _files(tmp_path) == before  # nothing deleted, nothing written
    assert result.text == NO_FILES  # no such folder: the honest answer


async def test_glob_folder_named_like_an_option_is_searched(tmp_path):
    (tmp_path / "-delete").mkdir()
    (tmp_path / "-delete" / "x.py").write_text("")
    result = await GlobTool(LocalSandbox(str(tmp_path))).execute({"pattern": "*.py", "path": "-delete"}, ctx())
    assert result.text == "./-delete/x.py"
    assert (tmp_path / "-delete" / "x.py").exists()


async def test_glob_ordinary_paths_unchanged(tmp_path):
    _tree(tmp_path)
    tool = GlobTool(LocalSandbox(str(tmp_path)))
    assert (await tool.execute({"pattern": "*.py", "path": "src"}, ctx())).text == "src/a.py"
    assert (await tool.execute({"pattern": "*.py"}, ctx())).text == "./src/a.py"


def test_path_operand():
    assert path_operand("src") == "src"
    assert path_operand("/abs/-x") == "/abs/-x"
    assert path_operand("./-x") == "./-x"
    assert path_operand("-x") == "./-x"
    assert path_operand("!") == "./!"


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_arguments_stay_operands(tmp_path, use_rg):
    before = _tree(tmp_path)
    script = tmp_path / "pre.sh"
    script.write_text(f'#!/bin/sh\ntouch {tmp_path}/pwned\ncat "$1"\n')
    script.chmod(0o755)
    before |= {"pre.sh"}
    tool = GrepTool(LocalSandbox(str(tmp_path)), use_rg=use_rg)
    hostile = [
        {"pattern": "--pre=./pre.sh", "path": "."},
        {"pattern": "foo", "include": f"--pre={script}"},
        {"pattern": "foo", "include": "--files"},
        {"pattern": "foo", "path": f"--pre={script}"},
        {"pattern": "-r", "path": "--include=*"},
    ]
    for args in hostile:
        try:
            await tool.execute(args, ctx())
        except ToolError:
            pass  # e.g. grep: no such file: an honest failure is fine
        assert _files(tmp_path) == before, args
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_include_value_is_a_glob(tmp_path, use_rg):
    (tmp_path / "-x.py").write_text("foo\n")
    (tmp_path / "b.py").write_text("foo\n")
    tool = GrepTool(LocalSandbox(str(tmp_path)), use_rg=use_rg)
    result = await tool.execute({"pattern": "foo", "include": "-x.py"}, ctx())
    assert result.text == "./-x.py:1:foo"


@pytest.mark.parametrize("use_rg", [True, False])
async def test_grep_path_dash_is_a_file_not_stdin(tmp_path, use_rg):
    (tmp_path / "-").write_text("foo\n")
    tool = GrepTool(LocalSandbox(str(tmp_path)), use_rg=use_rg)
    assert (await tool.execute({"pattern": "foo", "path": "-"}, ctx())).text == "./-:1:foo"
