"""What a session's first answer does not import: the modules only a tool call, an MCP server, the
Anthropic wire or a resume need are imported when one comes (permissions/policy.py, rules.py,
mcp/manager.py, model/direct_client.py, tui/app.py), not at every start before the first token.
And once a tool call comes, the lazily imported judging works: the call is judged and runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakellm.script import Call, Turn

ROOT = Path(__file__).resolve().parents[2]

# Only what a judged tool call (the shell reader, the workspace's scope, a question's preview), an
# MCP server, an Anthropic model or a resumed transcript needs.
DEFERRED = (
    "flue_tui.permissions.shell",
    "flue_tui.permissions.shellwords",
    "flue_tui.permissions.scope",
    "flue_tui.permissions.readonly",
    "flue_tui.permissions.asking",
    "flue_tui.mcp.connection",
    "flue_tui.model.wire_anthropic",
    "flue_tui.ui.backfill",
)

CHILD = r"""
import asyncio, json, sys
from flue_tui.config.settings import Settings
from flue_tui.runtime.handle import SessionHandle
from flue_tui.runtime.start import SessionOptions

DEFERRED = json.loads(sys.argv[2])

async def main():
    settings = Settings.from_env(model="openai/fake", cwd=sys.argv[1], permission_mode="accept-edits")
    handle = SessionHandle(settings, SessionOptions(persist=False))
    session = (await asyncio.to_thread(handle.start)).session
    first = await session.prompt("say hello")
    out = {"first": first.text, "loaded_after_first": [m for m in DEFERRED if m in sys.modules]}
    second = await session.prompt("list the files")
    out.update(second=second.text, tool_results=[(m.text, m.is_error) for m in session.messages if m.role == "toolResult"])
    print(json.dumps(out, default=str))
    handle.close()

asyncio.run(main())
"""


def test_a_first_answer_imports_no_tool_judging_and_a_later_call_is_judged(fakellm, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    fakellm.script(
        [
            Turn(text="Hello."),
            Turn(calls=[Call("bash", {"command": "ls"})]),  # read-only: accept-edits runs it unasked
            Turn(text="One file: notes.txt."),
        ]
    )
    env = dict(
        os.environ,
        OPENAI_BASE_URL=fakellm.base_url,
        OPENAI_API_KEY="sk-test",
        FLUE_HOME=str(tmp_path / "home"),
        FLUE_RELAY="off",
        FLUE_CHECKPOINTS="off",
    )
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(work), json.dumps(DEFERRED)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["first"] == "Hello."
    assert out["loaded_after_first"] == []
    assert out["second"] == "One file: notes.txt."
    assert out["tool_results"] == [["notes.txt", False]]  # judged read-only, run, not refused
