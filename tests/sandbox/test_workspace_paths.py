"""`--sandbox workspace` containment through the real tools: every escape is refused with the seed's
exact text, before the tool runs (the guard) and again where the file tools open paths (the sandbox)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flue_tui.core.abort import AbortSignal
from flue_tui.permissions.policy import PermissionPolicy
from flue_tui.sandbox.workspace import WorkspaceEscape, WorkspaceGuard, WorkspaceSandbox, real_path
from flue_tui.tools import builtin_tools
from flue_tui.tools.base import ToolContext
from tests.permissions.conftest import run_calls


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """tmp/ws (the workspace) with links to outside, inside, and in a loop; tmp/outside/secret.txt."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (ws / "a.txt").write_text("one\n")
    (ws / "sub" / "b.txt").write_text("two\n")
    os.symlink(outside, ws / "out")  # a symlink to outside
    os.symlink(outside / "secret.txt", ws / "secret-link.txt")
    os.symlink(outside / "new.txt", ws / "dangling.txt")  # dangling, pointing outside
    os.symlink(ws / "sub", ws / "in")  # a symlink that stays inside
    os.symlink("loop-b", ws / "loop-a")  # a symlink loop
    os.symlink("loop-a", ws / "loop-b")
    return ws


@pytest.fixture
def tools(layout: Path) -> dict:
    sandbox = WorkspaceSandbox(str(layout), root=str(layout))
    return {t.name: t for t in builtin_tools(sandbox)}


def _escapes(layout: Path) -> list[str]:
    return [
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        str(layout.parent / "outside" / "secret.txt"),
        "/etc/passwd",
        "out/secret.txt",
        "secret-link.txt",
        "loop-a",
        "loop-a/x",
        "..",
    ]


CALLS = {
    "read": lambda p: {"path": p},
    "write": lambda p: {"path": p, "content": "pwned\n"},
    "edit": lambda p: {"path": p, "oldText": "secret", "newText": "pwned"},
    "grep": lambda p: {"pattern": "secret", "path": p},
    "glob": lambda p: {"pattern": "*", "path": p},
}


@pytest.mark.parametrize("tool_name", list(CALLS))
async def test_every_escape_is_refused_with_the_exact_text(tool_name, layout, tools):
    policy = PermissionPolicy(mode="yolo", root=str(layout), guard=WorkspaceGuard(str(layout)))
    escapes = _escapes(layout)
    results = await run_calls(list(tools.values()), policy, *((tool_name, CALLS[tool_name](p)) for p in escapes))
    assert [r.text for r in results] == [f"path escapes workspace boundary: {p}" for p in escapes]
    assert all(r.is_error for r in results)
    assert (layout.parent / "outside" / "secret.txt").read_text() == "secret\n"
    assert not (layout.parent / "outside" / "new.txt").exists()
    assert len(policy.denials) == len(escapes)


async def test_a_dangling_link_to_outside_cannot_be_written_through(layout, tools):
    policy = PermissionPolicy(mode="yolo", root=str(layout), guard=WorkspaceGuard(str(layout)))
    [result] = await run_calls(list(tools.values()), policy, ("write", CALLS["write"]("dangling.txt")))
    assert result.text == "path escapes workspace boundary: dangling.txt"
    assert not (layout.parent / "outside" / "new.txt").exists()


async def test_inside_paths_work_absolute_and_through_inner_links(layout, tools):
    policy = PermissionPolicy(mode="yolo", root=str(layout), guard=WorkspaceGuard(str(layout)))
    results = await run_calls(
        list(tools.values()),
        policy,
        ("read", {"path": str(layout / "a.txt")}),
        ("read", {"path": "in/b.txt"}),
        ("read", {"path": "sub/../a.txt"}),
        ("write", {"path": "new/dir/c.txt", "content": "c\n"}),
        ("grep", {"pattern": "two", "path": "in/"}),
        ("glob", {"pattern": "*.txt"}),
    )
    assert [r.is_error for r in results] == [False] * 6, [r.text for r in results]
    assert results[0].text == "one\n" and results[1].text == "two\n"
    assert (layout / "new" / "dir" / "c.txt").read_text() == "c\n"
    assert policy.denials == []


@pytest.mark.parametrize("path", ["../outside/secret.txt", "out/secret.txt", "loop-a", "/etc/passwd"])
async def test_the_sandbox_refuses_even_without_the_guard(path, tools):
    """A tool that skips the policy still cannot open an escaping path: the sandbox checks again."""
    ctx = ToolContext(call_id="c1", signal=AbortSignal())
    for name in ("read", "write", "edit"):
        with pytest.raises(WorkspaceEscape) as err:
            await tools[name].execute(CALLS[name](path), ctx)
        assert str(err.value) == f"path escapes workspace boundary: {path}"


def test_a_sandbox_cannot_start_outside_its_root(layout):
    with pytest.raises(WorkspaceEscape, match="path escapes workspace boundary: "):
        WorkspaceSandbox(str(layout.parent / "outside"), root=str(layout))
    assert WorkspaceSandbox(str(layout / "sub"), root=str(layout)).cwd == str(layout / "sub")


def test_real_path_follows_links_like_the_kernel(layout):
    real = Path(os.path.realpath(layout))
    assert real_path(str(layout / "in" / "b.txt")) == str(real / "sub" / "b.txt")
    assert real_path(str(layout / "out" / ".." / "ws" / "a.txt")) == str(real / "a.txt")
    assert real_path(str(layout / "missing" / "x")) == str(real / "missing" / "x")


def test_a_task_cannot_be_started_outside_the_workspace(layout):
    from flue_tui.config.settings import Settings
    from flue_tui.runtime.wiring import Runtime

    runtime = Runtime(Settings(model="openai/fake", cwd=str(layout), sandbox="workspace"))
    parent, context = runtime.new_session()
    agent = context.roster.get("flue-general")
    with pytest.raises(WorkspaceEscape, match=f"^path escapes workspace boundary: {layout.parent / 'outside'}$"):
        runtime._make_child(parent, agent, "../outside")
    child = runtime._make_child(parent, agent, "sub")
    assert child.cwd == str(layout / "sub") and child.seams.before_tool is parent.seams.before_tool
