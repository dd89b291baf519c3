"""grep (rg and the grep fallback) and glob: Flue's command lines, caps and texts."""

from __future__ import annotations

import os

import pytest

from flue_tui.core.abort import ToolError
from flue_tui.core.details import FileMatchDetails, MatchDetails
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.glob import GlobTool
from flue_tui.tools.grep import GrepTool, find_rg

BACKENDS = ["rg", "grep"]


def _grep(tmp_path, backend: str) -> GrepTool:
    sb = LocalSandbox(str(tmp_path))
    return GrepTool(sb) if backend == "rg" else GrepTool(sb, use_rg=False)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("const foo = 1;\nbar\n")
    (tmp_path / "src" / "b.py").write_text("foo = 2\n")
    (tmp_path / "notes.txt").write_text("nothing here\n")
    return tmp_path


def test_rg_is_found():
    assert find_rg() is not None


async def test_backend_probe(tmp_path):
    assert await GrepTool(LocalSandbox(str(tmp_path))).backend() is not None
    assert await GrepTool(LocalSandbox(str(tmp_path)), use_rg=False).backend() is None
    # An rg that does not work in the sandbox falls back to grep.
    assert await GrepTool(LocalSandbox(str(tmp_path)), rg_path="/nonexistent/rg").backend() is None


async def test_rg_used_by_absolute_path_when_not_on_sandbox_path(tmp_path, ctx):
    (tmp_path / "x.txt").write_text("needle\n")
    sb = LocalSandbox(str(tmp_path), env={"PATH": "/usr/bin:/bin"})
    tool = GrepTool(sb)
    assert tool.rg_command() == find_rg()
    assert await tool.backend() == find_rg()
    r = await tool.execute({"pattern": "needle"}, ctx)
    assert r.text == "./x.txt:1:needle"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_matches_format(tree, ctx, backend):
    r = await _grep(tree, backend).execute({"pattern": "fo+"}, ctx)
    assert sorted(r.text.split("\n")) == ["./src/a.ts:1:const foo = 1;", "./src/b.py:1:foo = 2"]
    assert r.details == MatchDetails(2)
    r = await _grep(tree, backend).execute({"pattern": "foo", "include": "*.ts", "path": "src"}, ctx)
    assert r.text == "src/a.ts:1:const foo = 1;"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_no_matches(tree, ctx, backend):
    r = await _grep(tree, backend).execute({"pattern": "absent-token"}, ctx)
    assert r.text == "No matches found."
    assert r.details == MatchDetails(0)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_failure_text(tree, ctx, backend):
    with pytest.raises(ToolError) as exc:
        await _grep(tree, backend).execute({"pattern": "x", "path": "missing-dir"}, ctx)
    assert str(exc.value).startswith("grep failed: ")
    assert "missing-dir" in str(exc.value)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_literal(tree, ctx, backend):
    (tree / "re.txt").write_text("a.b\naxb\n")
    r = await _grep(tree, backend).execute({"pattern": "a.b", "literal": True, "path": "re.txt"}, ctx)
    assert r.text == "re.txt:1:a.b"


HOSTILE = ["$(touch pwned1)", "`touch pwned2`", "'; touch pwned3; '", '"; touch pwned4; "', "x\ntouch pwned5"]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_shell_metacharacters_are_searched_not_run(tmp_path, ctx, backend):
    (tmp_path / "evil.txt").write_text("\n".join(HOSTILE[:4]) + "\n")
    tool = _grep(tmp_path, backend)
    for i, pattern in enumerate(HOSTILE[:4]):
        r = await tool.execute({"pattern": pattern, "literal": True}, ctx)
        assert r.text == f"./evil.txt:{i + 1}:{pattern}"
    for pattern in HOSTILE:
        for args in ({"pattern": pattern}, {"pattern": "x", "include": pattern}, {"pattern": "x", "path": pattern}):
            try:
                await tool.execute(args, ctx)
            except ToolError:
                pass  # a bad regex or a missing path is fine; running it is not
    assert not [p for p in os.listdir(tmp_path) if p.startswith("pwned")]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_match_cap_notice(tmp_path, ctx, backend):
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(250)))
    r = await _grep(tmp_path, backend).execute({"pattern": "hit", "path": "many.txt"}, ctx)
    lines = r.text.split("\n")
    assert lines[:100] == [f"many.txt:{i + 1}:hit {i}" for i in range(100)]
    assert r.text.endswith("\n\n[Showing 100 of 250 matches. Narrow your search.]")
    assert r.details == MatchDetails(100)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_long_line_cut(tmp_path, ctx, backend):
    (tmp_path / "long.txt").write_text("needle " + "z" * 1000 + "\n")
    r = await _grep(tmp_path, backend).execute({"pattern": "needle", "path": "long.txt"}, ctx)
    expected_line = ("long.txt:1:needle " + "z" * 1000)[:500] + "..."
    assert r.text == expected_line


async def test_huge_output_is_counted_not_buffered(tmp_path, ctx):
    (tmp_path / "big.txt").write_text("match line\n" * 300_000)
    r = await GrepTool(LocalSandbox(str(tmp_path))).execute({"pattern": "match", "path": "big.txt"}, ctx)
    assert r.text.endswith("\n\n[Showing 100 of 300000 matches. Narrow your search.]")


# ---- glob --------------------------------------------------------------------------------


async def test_glob_finds_in_find_order(tree, ctx):
    r = await GlobTool(LocalSandbox(str(tree))).execute({"pattern": "*.ts"}, ctx)
    assert r.text == "./src/a.ts"
    assert r.details == FileMatchDetails(1)
    r = await GlobTool(LocalSandbox(str(tree))).execute({"pattern": "*", "path": "src"}, ctx)
    assert sorted(r.text.split("\n")) == ["src/a.ts", "src/b.py"]


async def test_glob_no_match_and_missing_dir(tree, ctx):
    tool = GlobTool(LocalSandbox(str(tree)))
    for args in ({"pattern": "*.zig"}, {"pattern": "*", "path": "nope"}):
        r = await tool.execute(args, ctx)
        assert r.text == "No files found matching pattern."
        assert r.details == FileMatchDetails(0)


async def test_glob_symlink_loop(tmp_path, ctx):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f.txt").write_text("x")
    os.symlink(tmp_path / "d", tmp_path / "d" / "loop")
    os.symlink(tmp_path, tmp_path / "d" / "up")
    r = await GlobTool(LocalSandbox(str(tmp_path))).execute({"pattern": "*.txt"}, ctx)
    assert r.text == "./d/f.txt"


async def test_glob_cap_at_1000(tmp_path, ctx):
    for i in range(1100):
        (tmp_path / f"f{i}.log").write_text("")
    r = await GlobTool(LocalSandbox(str(tmp_path))).execute({"pattern": "*.log"}, ctx)
    paths = r.text.split("\n")
    assert len(paths) == 1000 and r.details == FileMatchDetails(1000)
    assert all(p.startswith("./f") and p.endswith(".log") for p in paths)
    assert "[" not in r.text  # no truncation notice


async def test_glob_pattern_with_quotes_is_safe(tmp_path, ctx):
    (tmp_path / "it's.md").write_text("")
    r = await GlobTool(LocalSandbox(str(tmp_path))).execute({"pattern": "it's.md"}, ctx)
    assert r.text == "./it's.md"
    r = await GlobTool(LocalSandbox(str(tmp_path))).execute({"pattern": "$(touch pwned)"}, ctx)
    assert r.text == "No files found matching pattern."
    assert not (tmp_path / "pwned").exists()


async def test_probe_survives_a_cancelled_caller(tmp_path, ctx):
    import asyncio

    (tmp_path / "x.txt").write_text("needle\n")
    tool = GrepTool(LocalSandbox(str(tmp_path)))
    first = asyncio.create_task(tool.execute({"pattern": "needle"}, ctx))
    second = asyncio.create_task(tool.execute({"pattern": "needle"}, ctx))
    await asyncio.sleep(0)
    first.cancel()
    r = await second
    assert r.text == "./x.txt:1:needle"
    assert await tool.backend() is not None
