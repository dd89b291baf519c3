"""A session's life over ACP: what initialize promises, a turn streamed as updates, the edits a
person approves or refuses (the refused one stays unwritten), modes, and the model option."""

from __future__ import annotations

from acp import text_block

from tests.acp.client import running
from tests.acp.conftest import run
from tests.fakellm import Call, Turn


def test_initialize_new_session_and_a_streamed_turn(fakellm, flue_env, tmp_path):
    fakellm.script([Turn(text="Hello there.", reasoning="Thinking it over.", usage=(120, 9))])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, init):
            caps = init.agent_capabilities
            assert init.protocol_version == 1 and init.agent_info.name == "flue-tui"
            assert caps.load_session is True
            assert caps.prompt_capabilities.embedded_context is True
            assert caps.prompt_capabilities.image is True
            assert caps.mcp_capabilities.http is True
            assert caps.session_capabilities.list is not None and caps.session_capabilities.fork is not None
            assert [m.id for m in init.auth_methods] == ["provider-api-key"]
            await conn.authenticate(method_id="provider-api-key")  # the key is set: nothing to do
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            assert new.modes.current_mode_id == "ask"
            assert [m.id for m in new.modes.available_modes] == ["ask", "accept-edits", "plan"]  # no yolo unasked
            model = next(o for o in new.config_options if o.id == "model")
            assert model.category == "model" and model.current_value == "openai/fake"
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
            assert answer.stop_reason == "end_turn"
            assert answer.usage.input_tokens == 120 and answer.usage.output_tokens == 9
            assert client.text() == "Hello there."
            assert client.text("agent_thought_chunk") == "Thinking it over."
            assert client.of("usage_update")
            kinds = client.kinds()
            assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
            assert "available_commands_update" in kinds
            return new.session_id

    session_id = run(main())
    assert session_id.startswith("ses_")


def test_an_edit_approved_and_one_refused(fakellm, flue_env, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\n")
    fakellm.script(
        [
            Turn(calls=[Call("edit", {"path": "notes.txt", "oldText": "alpha", "newText": "beta"})]),
            Turn(text="Edited."),
            Turn(calls=[Call("write", {"path": "secret.txt", "content": "leak\n"})]),
            Turn(text="Could not write."),
        ]
    )

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            client.answers = ["allow_once"]
            first = await conn.prompt(session_id=new.session_id, prompt=[text_block("edit it")])
            assert first.stop_reason == "end_turn"
            tool_call, options = client.questions[0]
            assert tool_call.kind == "edit" and tool_call.locations[0].path == str(tmp_path / "notes.txt")
            assert tool_call.content[0].old_text == "alpha\n" and tool_call.content[0].new_text == "beta\n"
            assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
            start = client.of("tool_call")[0]
            assert start.kind == "edit" and start.title == "edit notes.txt"
            done = client.of("tool_call_update")[-1]
            assert done.status == "completed"
            assert (done.content[0].old_text, done.content[0].new_text) == ("alpha\n", "beta\n")
            client.answers = ["reject_once"]
            second = await conn.prompt(session_id=new.session_id, prompt=[text_block("write it")])
            assert second.stop_reason == "end_turn"
            refused = client.of("tool_call_update")[-1]
            assert refused.status == "failed"

    run(main())
    assert (tmp_path / "notes.txt").read_text() == "beta\n"
    assert not (tmp_path / "secret.txt").exists()  # refused: never written
    tool_results = [m for m in fakellm.requests[-1]["messages"] if m["role"] == "tool"]
    assert tool_results[-1]["content"] == "Permission denied: the user refused this write call."


def test_always_answers_become_session_rules_and_odd_answers_allow_nothing(fakellm, flue_env, tmp_path):
    writes = [Turn(calls=[Call("write", {"path": f"f{i}.txt", "content": "x"})]) for i in range(6)]
    fakellm.script([t for w in writes for t in (w, Turn(text="ok"))])

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            sid = new.session_id
            client.answers = ["not-an-option"]  # an id never offered: no effect
            await conn.prompt(session_id=sid, prompt=[text_block("w0")])
            client.answers = [None]  # the question dismissed
            await conn.prompt(session_id=sid, prompt=[text_block("w1")])
            client.answers = ["allow_always"]
            await conn.prompt(session_id=sid, prompt=[text_block("w2")])
            asked = len(client.questions)
            await conn.prompt(session_id=sid, prompt=[text_block("w3")])  # allowed by the session rule
            assert len(client.questions) == asked
            new2 = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            client.answers = ["reject_always"]
            await conn.prompt(session_id=new2.session_id, prompt=[text_block("w4")])
            asked = len(client.questions)
            await conn.prompt(session_id=new2.session_id, prompt=[text_block("w5")])  # refused unasked
            assert len(client.questions) == asked

    run(main())
    assert [p.name for p in sorted(tmp_path.glob("f*.txt"))] == ["f2.txt", "f3.txt"]


def test_modes_and_the_model_option(fakellm, flue_env, tmp_path):
    fakellm.script(
        [
            Turn(calls=[Call("write", {"path": "plan.txt", "content": "x"})]),
            Turn(text="Planned."),
            Turn(calls=[Call("write", {"path": "edit.txt", "content": "y"})]),
            Turn(text="Written."),
            Turn(text="From the other model."),
        ]
    )

    async def main():
        async with running(flue_env, tmp_path) as (conn, client, _):
            new = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            sid = new.session_id
            await conn.set_session_mode(session_id=sid, mode_id="plan")
            await conn.prompt(session_id=sid, prompt=[text_block("plan")])
            assert client.questions == []  # plan mode refuses without asking
            await conn.set_config_option(session_id=sid, config_id="mode", value="accept-edits")
            await conn.prompt(session_id=sid, prompt=[text_block("edit")])
            assert client.questions == []  # accept-edits: edits run unasked
            got = await conn.set_config_option(session_id=sid, config_id="model", value="openai/other")
            model = next(o for o in got.config_options if o.id == "model")
            assert model.current_value == "openai/other"
            await conn.prompt(session_id=sid, prompt=[text_block("again")])
            for bad in ({"config_id": "mode", "value": "yolo"}, {"config_id": "nope", "value": "x"}):
                try:
                    await conn.set_config_option(session_id=sid, **bad)
                except Exception as exc:
                    assert "yolo" in str(exc) or "nope" in str(exc) or "Invalid" in str(exc)
                else:
                    raise AssertionError(f"accepted {bad}")

    run(main())
    assert not (tmp_path / "plan.txt").exists() and (tmp_path / "edit.txt").read_text() == "y"
    assert fakellm.requests[-1]["model"] == "other"
