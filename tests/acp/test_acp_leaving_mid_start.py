"""A client that goes away while session/new is still starting (its SessionStart hook running):
flue waits for the start (agent.SETTLE), then ends that session too with its SessionEnd."""

from __future__ import annotations

import asyncio
import json
import sys
import threading

from tests.acp.client import running
from tests.acp.conftest import run


def test_a_client_that_leaves_during_session_new_still_gets_session_end(fakellm, flue_env, tmp_path):
    log = tmp_path / "events.jsonl"
    gate = tmp_path / "go"
    script = tmp_path / "log.py"
    script.write_text(
        "import json, os, sys, time\nd = json.load(sys.stdin)\n"
        f"open({str(log)!r}, 'a').write(json.dumps(d) + '\\n')\n"
        "if d['hook_event_name'] == 'SessionStart':\n"
        f"    while not os.path.exists({str(gate)!r}): time.sleep(0.02)\n"
    )
    command = [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}", "timeout": 120}]}]
    settings = json.dumps({"hooks": {"SessionStart": command, "SessionEnd": command}})

    async def go() -> None:
        async with running(flue_env, tmp_path, "--settings", settings) as (conn, _client, _):
            opening = asyncio.ensure_future(conn.new_session(cwd=str(tmp_path), mcp_servers=[]))
            for _ in range(3000):
                if log.exists():
                    break
                await asyncio.sleep(0.02)
            assert not opening.done()  # the hook holds the start
            # leaving the block closes the agent's stdin while the start is still in its hook
            threading.Timer(0.5, gate.write_text, ("",)).start()

    try:
        run(go())
    finally:
        gate.write_text("")
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(d["hook_event_name"], d.get("source") or d.get("reason")) for d in seen] == [
        ("SessionStart", "startup"),
        ("SessionEnd", "other"),
    ]
    assert "Traceback" not in (tmp_path.parent / f"{tmp_path.name}-acp-stderr.txt").read_text()
