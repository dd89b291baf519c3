"""ACP: a project's `.claude/commands` are announced as available commands (with their
argument hint) and run from a prompt that starts with `/name`. The folder is
tests/context/claude_folder (copied from anthropics/claude-code @ 5889ae69 and
1215-Labs/claude-code-templates @ 6a28e042; its README names each file)."""

from __future__ import annotations

import shutil
from pathlib import Path

from acp import text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Turn

FOLDER = Path(__file__).parent.parent / "context" / "claude_folder" / ".claude"


def test_commands_are_announced_and_run(fakellm, flue_env, tmp_path):
    shutil.copytree(FOLDER, tmp_path / ".claude")
    (tmp_path / ".claude" / "commands" / "help.md").write_text("Not the app's help.\n")
    fakellm.script([Turn(text="Analysed.")])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            update = await client.wait_for(lambda: (client.of("available_commands_update") or [None])[-1])
            by_name = {c.name: c for c in update.available_commands}
            assert {"commit-push-pr", "workflow:rca"} <= set(by_name) and "help" not in by_name
            assert by_name["workflow:rca"].input.root.hint == "<issue description or error message>"
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("/workflow:rca it $(id)")])
            assert answer.stop_reason == "end_turn"

    run(main())
    assert "**Issue to investigate**: it $(id)\n" in fakellm.requests[-1]["messages"][-1]["content"]
