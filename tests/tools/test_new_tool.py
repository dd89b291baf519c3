"""A new tool is one file (issue 24): `ls(path)` below declares its traits next to its schema and
nothing else in flue changes, yet the workspace guard contains its path, a deny rule matches it
through `../..`, and a resumed session shows its kind and how each call ended, even once the tool
is gone. Only `builtin_tools` is extended, as a plugin would (the real `flue -p`, in this process)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import flue_tui.tools as tools
from flue_tui.core.traits import ToolTraits
from flue_tui.permissions.policy import RULE_TEXT
from flue_tui.sandbox.base import Sandbox
from flue_tui.store.sessions import SessionStore
from flue_tui.tools.base import ToolContext, ToolResult, prop, schema
from flue_tui.ui.backfill import make_backfill
from flue_tui.ui.toolfmt import header
from flue_tui.ui.transcript import ToolEntry
from tests.fakellm import Call, Turn


class LsTool:
    name = "ls"
    label = "List Directory"
    description = "List the entries of a directory, one per line."
    parameters = schema({"path": prop("string", "The directory to list")}, ["path"])
    traits = ToolTraits(kind="read", paths=("path",), read_only=True)

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    async def execute(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("\n".join(sorted(os.listdir(self.sandbox.resolve_path(args["path"])))))


@pytest.fixture(autouse=True)
def with_ls(monkeypatch):
    builtin = tools.builtin_tools
    monkeypatch.setattr(tools, "builtin_tools", lambda sandbox: [*builtin(sandbox), LsTool(sandbox)])


def _sent(fakellm) -> dict[str, str]:
    """What the model was told, per call, in the second request."""
    return {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}


def _run(flue_main, *args: str) -> dict[str, Any]:
    out = flue_main("-p", "look around", "--model", "openai/fake", "--output-format", "json", *args)
    assert out.code == 0, out.stderr
    return json.loads(out.stdout)


def test_the_workspace_guard_contains_its_path(fakellm, flue_main, tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("a\n")
    escape = os.path.relpath("/etc", tmp_path / "sub")  # ../../…/etc
    calls = [
        Call("ls", {"path": "/etc"}, id="abs"),
        Call("ls", {"path": f"sub/{escape}"}, id="rel"),
        Call("ls", {"path": "."}, id="here"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    result = _run(flue_main, "--sandbox", "workspace")
    sent = _sent(fakellm)
    assert sent["abs"] == "path escapes workspace boundary: /etc"
    assert sent["rel"] == f"path escapes workspace boundary: sub/{escape}"
    assert sent["here"] == "a.txt\nsub"
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["abs", "rel"]


def test_a_deny_rule_matches_it_through_dot_dot(fakellm, flue_main, tmp_path: Path):
    (tmp_path / "secret" / "inner").mkdir(parents=True)
    up = os.path.relpath("/etc/ssh", tmp_path)  # ../../…/etc/ssh
    calls = [
        Call("ls", {"path": up}, id="etc"),
        Call("ls", {"path": "a/b/../../secret/inner"}, id="secret"),
        Call("ls", {"path": "."}, id="ok"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    result = _run(flue_main, "--disallowed-tools", "ls(/etc/**) ls(secret/**)")
    sent = _sent(fakellm)
    assert sent["etc"] == RULE_TEXT.format(tool="ls", rule="ls(/etc/**)")
    assert sent["secret"] == RULE_TEXT.format(tool="ls", rule="ls(secret/**)")
    assert sent["ok"] == "secret"
    assert [d["tool_use_id"] for d in result["permission_denials"]] == ["etc", "secret"]


def test_a_resumed_session_shows_its_kind_and_outcome_without_the_tool(
    fakellm, flue_main, tmp_path: Path, _isolated_home: Path
):
    (tmp_path / "a.txt").write_text("a\n")
    calls = [Call("ls", {"path": "."}, id="here"), Call("ls", {"path": "/etc"}, id="away")]
    fakellm.script([Turn(calls=calls), Turn(text="done")])
    result = _run(flue_main, "--disallowed-tools", "ls(/etc)", "--session", "listing")
    with SessionStore.open(_isolated_home / "sessions.db") as store:
        messages = store.load_context(result["session_id"])
    # No tools given: what the entry knows comes from the stored rows alone.
    entries = [e for e in make_backfill(messages, str(tmp_path))(100) if isinstance(e, ToolEntry)]
    assert [(e.name, e.kind, e.status, e.outcome) for e in entries] == [
        ("ls", "read", "ok", "ok"),
        ("ls", "read", "error", "denied"),
    ]
    assert header(entries[1], 0, 0.0).plain == "✗ ls  /etc  denied"
