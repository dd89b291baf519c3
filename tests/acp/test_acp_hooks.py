"""The user's hooks in an ACP session (`flue --acp --settings …`): SessionStart's context reaches
the first prompt, SessionEnd runs when the connection closes."""

from __future__ import annotations

import json
import sys

from acp import text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Turn


def test_session_start_and_end_in_an_acp_session(fakellm, flue_env, tmp_path):
    log = tmp_path / "events.jsonl"
    script = tmp_path / "log.py"
    script.write_text(
        "import json, sys\nd = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(json.dumps(d) + '\\n')\n"
        "if d['hook_event_name'] == 'SessionStart':\n    print('The staging server is down.')\n"
    )
    # A timeout of its own: SessionEnd's default 1.5 s is shorter than a Python start on a loaded machine.
    command = [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}", "timeout": 120}]}]
    settings = json.dumps({"hooks": {"SessionStart": command, "SessionEnd": command}})
    fakellm.script([Turn(text="Noted.")])

    async def go() -> str:
        async with running(flue_env, tmp_path, "--settings", settings) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("deploy?")])
            assert client.text() == "Noted."
            return new.session_id

    sid = run(go())
    user = [m["content"] for m in fakellm.requests[0]["messages"] if m["role"] == "user"]
    assert user == ["deploy?\n\nThe staging server is down."]
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(d["hook_event_name"], d.get("source") or d.get("reason")) for d in seen] == [
        ("SessionStart", "startup"),
        ("SessionEnd", "other"),
    ]
    assert {d["session_id"] for d in seen} == {sid}
