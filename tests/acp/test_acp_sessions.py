"""An ACP session is a flue session: listed, loaded in a fresh process (its history replayed as
updates, then continued with it), forked; an unknown id is an error and the agent lives on."""

from __future__ import annotations

import pytest
from acp import RequestError, text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn


def test_load_in_a_fresh_process_replays_and_continues(fakellm, flue_env, tmp_path):
    (tmp_path / "a.txt").write_text("one\n")
    fakellm.script(
        [
            Turn(text="Reading.", calls=[Call("read", {"path": "a.txt"})]),
            Turn(text="It says one."),
            Turn(text="Still here."),
            Turn(text="Forked reply."),
        ]
    )

    async def first():
        async with running(flue_env, tmp_path) as (conn, _client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("what is in a.txt?")])
            return new.session_id

    async def second(sid: str):
        async with running(flue_env, tmp_path) as (conn, client, _):
            listed = await conn.list_sessions(cwd=str(tmp_path))
            assert [s.session_id for s in listed.sessions] == [sid]
            assert listed.sessions[0].title == "what is in a.txt?"
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
            assert client.text("user_message_chunk") == "what is in a.txt?"
            assert client.text() == "Reading.It says one."
            call = client.of("tool_call")[0]
            assert call.kind == "read" and call.locations[0].path == str(tmp_path / "a.txt")
            assert client.of("tool_call_update")[0].status == "completed"
            client.updates.clear()
            answer = await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
            assert answer.stop_reason == "end_turn" and client.text() == "Still here."
            fork = await conn.fork_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
            assert fork.session_id != sid
            await conn.prompt(session_id=fork.session_id, prompt=[text_block("in the fork")])
            client.updates.clear()
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])  # again, same process
            assert client.text() == "Reading.It says one.Still here."
            with pytest.raises(RequestError):
                await conn.load_session(cwd=str(tmp_path), session_id="ses_nope", mcp_servers=[])
            with pytest.raises(RequestError):
                await conn.prompt(session_id="ses_nope", prompt=[text_block("x")])
            listed = await conn.list_sessions(cwd=str(tmp_path))
            assert {s.session_id for s in listed.sessions} == {sid, fork.session_id}

    sid = run(first())
    run(second(sid))
    continued = fakellm.requests[2]["messages"]
    assert [m["role"] for m in continued if m["role"] != "system"] == ["user", "assistant", "tool", "assistant", "user"]
    assert "what is in a.txt?" in continued[1]["content"]


def test_a_reply_with_split_and_lone_surrogates_is_shown_saved_and_loaded(fakellm, flue_env, tmp_path):
    """One character's halves in two events are joined, a lone half is U+FFFD: the editor gets the
    text it can show, and `session/load` replays the same reply (it was saved)."""
    fakellm.script([Turn(text_deltas=["Smile \ud83d", "\ude00, lone \ud800 and", " dangling \ud83d"])])
    shown = "Smile 😀, lone \ufffd and dangling \ufffd"

    async def first():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
            assert answer.stop_reason == "end_turn" and client.text() == shown
            return new.session_id

    async def second(sid: str):
        async with running(flue_env, tmp_path) as (conn, client, _):
            await conn.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
            assert client.text() == shown

    run(second(run(first())))


def test_a_session_is_loaded_resumed_and_forked_only_in_its_own_project(fakellm, flue_env, tmp_path):
    """A client in project B may not load, resume or fork project A's session by its id: its history
    would go to the model with B's files and B's rules. All three refuse alike, before any model call."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    fakellm.script([Turn(text="In A."), Turn(text="never sent")])

    async def go():
        async with running(flue_env, tmp_path) as (conn, _client, _):
            new = await conn.new_session(cwd=str(a), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("secret of A")])
            await conn.close_session(session_id=new.session_id)
            errors = []
            for method in (conn.load_session, conn.resume_session, conn.fork_session):
                with pytest.raises(RequestError) as refused:
                    await method(cwd=str(b), session_id=new.session_id, mcp_servers=[])
                errors.append((refused.value.code, str(refused.value)))
            with pytest.raises(RequestError) as unknown:  # no id to copy: no new session takes it
                await conn.fork_session(cwd=str(a), session_id="ses_nope", mcp_servers=[])
            assert "No stored session ses_nope to fork" in str(unknown.value)
            listed = await conn.list_sessions()
            return new.session_id, errors, {s.session_id for s in listed.sessions}

    sid, errors, listed = run(go())
    assert len(fakellm.requests) == 1
    assert listed == {sid}  # no fork was stored
    assert [code for code, _ in errors] == [-32000] * 3
    assert all(f"Session {sid} belongs to {a}; run flue there to" in text for _, text in errors), errors
