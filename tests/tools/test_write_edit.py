"""write and edit: exact result and error texts, literal replacement, parents, UI diffs."""

from __future__ import annotations

import pytest

from flue_tui.core.abort import AbortError, ToolError
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools.edit import EditTool
from flue_tui.tools.write import WriteTool


@pytest.fixture
def sb(tmp_path) -> LocalSandbox:
    return LocalSandbox(str(tmp_path))


async def test_write_creates_parents_and_reports_utf16_length(sb, tmp_path, ctx):
    r = await WriteTool(sb).execute({"path": "deep/er/x.txt", "content": "héllo 😀\n"}, ctx)
    assert r.text == "Successfully wrote 9 bytes to deep/er/x.txt"  # len()=8, UTF-8=12
    assert (tmp_path / "deep/er/x.txt").read_text() == "héllo 😀\n"
    assert r.details.path == "deep/er/x.txt" and r.details.size == 9
    assert r.details.diff == "--- a/deep/er/x.txt\n+++ b/deep/er/x.txt\n@@ -0,0 +1 @@\n+héllo 😀"


async def test_write_overwrites_and_diffs_against_old(sb, tmp_path, ctx):
    (tmp_path / "f").write_text("one\ntwo\n")
    r = await WriteTool(sb).execute({"path": str(tmp_path / "f"), "content": "one\nthree\n"}, ctx)
    assert r.text == f"Successfully wrote 10 bytes to {tmp_path / 'f'}"
    assert (tmp_path / "f").read_text() == "one\nthree\n"
    assert "-two\n+three" in r.details.diff


async def test_write_keeps_crlf(sb, tmp_path, ctx):
    await WriteTool(sb).execute({"path": "w.txt", "content": "a\r\nb"}, ctx)
    assert (tmp_path / "w.txt").read_bytes() == b"a\r\nb"


async def test_write_error_text(sb, tmp_path, ctx):
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError) as exc:
        await WriteTool(sb).execute({"path": "d", "content": "x"}, ctx)
    assert str(exc.value) == f"EISDIR: illegal operation on a directory, open '{tmp_path}/d'"


async def _edit(sb, ctx, **args):
    return await EditTool(sb).execute({"path": "f.txt", **args}, ctx)


async def test_edit_unique(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_text("alpha\nbeta\ngamma\n")
    r = await _edit(sb, ctx, oldText="beta", newText="BETA")
    assert r.text == "Successfully edited f.txt"
    assert (tmp_path / "f.txt").read_text() == "alpha\nBETA\ngamma\n"
    assert r.details.path == "f.txt" and r.details.replacements is None
    assert "-beta\n+BETA" in r.details.diff


async def test_edit_errors(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_text("x x x\n")
    with pytest.raises(ToolError) as exc:
        await _edit(sb, ctx, oldText="y", newText="z")
    assert str(exc.value) == (
        "Could not find the exact text in f.txt. Make sure your oldText matches exactly, "
        "including whitespace and indentation."
    )
    with pytest.raises(ToolError) as exc:
        await _edit(sb, ctx, oldText="x", newText="z")
    assert str(exc.value) == (
        "Found 3 occurrences of the text in f.txt. Provide more surrounding context to make "
        "the match unique, or use replaceAll."
    )
    with pytest.raises(ToolError) as exc:
        await _edit(sb, ctx, oldText="", newText="z")
    assert str(exc.value) == "oldText must be a non-empty string."
    assert (tmp_path / "f.txt").read_text() == "x x x\n"


async def test_empty_old_text_checked_before_reading(sb, ctx):
    with pytest.raises(ToolError) as exc:
        await EditTool(sb).execute({"path": "missing.txt", "oldText": "", "newText": "z"}, ctx)
    assert str(exc.value) == "oldText must be a non-empty string."


async def test_edit_missing_file_node_error(sb, tmp_path, ctx):
    with pytest.raises(ToolError) as exc:
        await _edit(sb, ctx, oldText="a", newText="b")
    assert str(exc.value) == f"ENOENT: no such file or directory, open '{tmp_path}/f.txt'"


async def test_overlapping_occurrences_count_once(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_text("aaa")
    r = await _edit(sb, ctx, oldText="aa", newText="b")
    assert r.text == "Successfully edited f.txt"
    assert (tmp_path / "f.txt").read_text() == "ba"


async def test_dollar_patterns_stay_literal(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_text("price: X; other: Y Y\n")
    await _edit(sb, ctx, oldText="X", newText="$& and $$ and $1 and $`")
    await _edit(sb, ctx, oldText="Y", newText="[$&]", replaceAll=True)
    assert (tmp_path / "f.txt").read_text() == "price: $& and $$ and $1 and $`; other: [$&] [$&]\n"


async def test_replace_all_counts(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_text("a-a-a-aa")
    r = await _edit(sb, ctx, oldText="a", newText="b", replaceAll=True)
    assert r.text == "Replaced 5 occurrences in f.txt"
    assert r.details.replacements == 5 and r.details.path == "f.txt"
    assert (tmp_path / "f.txt").read_text() == "b-b-b-bb"


async def test_replace_all_with_same_text_or_no_match(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_text("same same")
    for old, new in (("same", "same"), ("nothere", "x")):
        with pytest.raises(ToolError) as exc:
            await _edit(sb, ctx, oldText=old, newText=new, replaceAll=True)
        assert str(exc.value) == "Could not find the text in f.txt. No changes made."


async def test_edit_keeps_bom_and_crlf(sb, tmp_path, ctx):
    (tmp_path / "f.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    await _edit(sb, ctx, oldText="b\r\n", newText="c\r\n")
    assert (tmp_path / "f.txt").read_bytes() == b"\xef\xbb\xbfa\r\nc\r\n"


async def test_aborted_before_start(sb, tmp_path, ctx):
    ctx.signal.abort()
    for tool, args in (
        (WriteTool(sb), {"path": "n", "content": "x"}),
        (EditTool(sb), {"path": "n", "oldText": "a", "newText": "b"}),
    ):
        with pytest.raises(AbortError) as exc:
            await tool.execute(args, ctx)
        assert str(exc.value) == "Operation aborted"
    assert not (tmp_path / "n").exists()
