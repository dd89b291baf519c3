"""todo_write's checklist reaches the editor as ACP `plan` updates: live, whole each time, and again
when the session is loaded in a fresh process; a refused plan (bad status) sends none."""

from __future__ import annotations

from acp import text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn

PLAN = [
    {"content": "Read the parser", "status": "completed"},
    {"content": "Fix the off-by-one", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
]


def _entries(client):
    return [[(e.content, e.status) for e in u.entries] for u in client.of("plan")]


def test_the_plan_is_sent_live_and_replayed_on_load(fakellm, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(calls=[Call("todo_write", {"todos": [{"content": "x", "status": "done"}]})]),
            Turn(calls=[Call("todo_write", {"todos": PLAN})]),
            Turn(text="Planned."),
        ]
    )
    want = [[(t["content"], t["status"]) for t in PLAN]]

    async def first():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("plan it")])
            assert answer.stop_reason == "end_turn"
            assert _entries(client) == want  # the refused first call sent no plan
            return new.session_id

    async def second(sid: str):
        async with running(flue_env, tmp_path) as (conn, client, _):
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
            assert _entries(client) == want

    run(second(run(first())))
