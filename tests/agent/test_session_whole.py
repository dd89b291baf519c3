"""A Session is whole when built (issue 24): what it consults (its policy, MCP, hooks, checkpoints,
system prompt) is given to its constructor by runtime/wiring.py, and no module sets it afterwards.
Checked in the source, so a new `session.before_turn = …` somewhere fails here, not in review."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "flue_tui"
# What the Session consults, given at construction. `model` is missing on purpose: /model's swap
# (SessionHandle.switch_model) replaces the client of the live session, which is its point.
CONSULTED = {
    "before_tool",
    "after_tool",
    "before_turn",
    "before_prompt",
    "after_prompt",
    "prompt_hooks",
    "prompt_scope",
    "system_prompt",
    "recompose",
    "compaction",
    "max_budget_usd",
    "make_child",
    "seams",
}


def assignments(source: str) -> list[tuple[int, str]]:
    """(line, attribute) of every `x.attr = …` (also augmented and annotated) outside `self.attr`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            continue
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in CONSULTED:
                if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                    found.append((node.lineno, target.attr))
    return found


def test_no_module_sets_what_a_session_consults_after_building_it():
    patched = [
        f"{path.relative_to(PACKAGE)}:{line} .{attr}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, attr in assignments(path.read_text(encoding="utf-8"))
    ]
    assert patched == []


def test_the_check_sees_a_patch():
    source = "def f(session, hook):\n    session.before_prompt = hook\n    self.before_turn = hook\n    x.tool.make_child = 1\n"
    assert assignments(source) == [(2, "before_prompt"), (4, "make_child")]
