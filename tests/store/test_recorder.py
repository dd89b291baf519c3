"""The recorder saves a live session: messages at once, streamed text within a second, tasks as children."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

from flue_tui.core.events import MessageEnd, TaskStart, TextDelta, TurnStart
from flue_tui.core.messages import message_to_dict
from flue_tui.store.recorder import Recorder
from flue_tui.store.sessions import SessionStore
from tests.agent.conftest import EchoAfter
from tests.fakellm import Call, Turn
from tests.store.conftest import user


async def test_a_session_is_saved_and_resumes_with_its_history(fakellm, make_session, db_path):
    fakellm.script(
        [Turn(calls=[Call("echo_after", {"text": "one"})]), Turn(text="first answer"), Turn(text="second answer")]
    )
    store = SessionStore.open(db_path)
    session = make_session([EchoAfter()])
    session.subscribe(Recorder(store, session_id=session.id, cwd="/proj", model="openai/fake", name="work"))
    await session.prompt("please echo")
    saved = [m.data for m in store.iter_messages(session.id)]
    assert saved == [message_to_dict(m) for m in session.messages]
    info = store.get(session.id)
    assert info.name == "work" and info.title == "please echo" and info.message_count == 4
    assert info.input_tokens == 20 and info.output_tokens == 10  # two turns of the default (10, 5)

    resumed = make_session([EchoAfter()], session_id=session.id, messages=store.load_context(session.id))
    resumed.subscribe(Recorder(store, session_id=session.id, cwd="/proj", model="openai/fake", exists=True))
    await resumed.prompt("and again")
    sent = fakellm.requests[-1]["messages"]
    # The first run's last request, its answer, then the new prompt: the whole history went back.
    assert sent[:-2] == fakellm.requests[1]["messages"]
    assert sent[-2:] == [{"role": "assistant", "content": "first answer"}, {"role": "user", "content": "and again"}]
    assert [m.seq for m in store.iter_messages(session.id)] == list(range(1, 7))
    assert store.get(session.id).title == "please echo"


async def test_streamed_text_is_checkpointed_while_it_streams(fakellm, make_session, db_path):
    # The stream is held after 19 words until the test has seen the draft grow: no clock decides it.
    rest = threading.Event()
    fakellm.script([Turn(text_tokens=60, stall_after=20, hold=rest)])
    store = SessionStore.open(db_path)
    session = make_session([])
    session.subscribe(Recorder(store, session_id=session.id, cwd="/proj", model="openai/fake"))
    reader = sqlite3.connect(db_path)  # another connection, as a crashed process's successor would be

    def draft() -> str | None:
        row = reader.execute("SELECT text, partial FROM messages WHERE role = 'assistant'").fetchone()
        return row[0] if row and row[1] == 1 else None

    streamed: list[str] = []
    seen: list[int] = []

    def after_the_recorder(event: object) -> None:  # subscribed after it: sees what it has just written
        if isinstance(event, TextDelta):
            streamed.append(event.text)
            text = draft()
            if text is not None:
                seen.append(len(text))

    session.subscribe(after_the_recorder)
    run = asyncio.ensure_future(session.prompt("talk"))
    # Held mid-stream: the checkpoint timer writes everything that came (generous limit, a loaded box).
    deadline = time.monotonic() + 60
    while not (len(streamed) == 19 and draft() == "".join(streamed)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    held = draft()
    assert not run.done() and held is not None and held == "".join(streamed)
    seen.append(len(held))
    rest.set()
    await run
    assert seen == sorted(seen) and len(set(seen)) >= 2  # the draft was there, and grew, while it streamed
    rows = reader.execute("SELECT text, partial FROM messages WHERE role = 'assistant'").fetchall()
    assert rows == [(session.messages[-1].text, 0)]  # the finished message replaced the draft


async def test_a_stalled_stream_is_still_written_within_the_interval(store):
    rec = Recorder(store, session_id="ses_r", cwd="/proj", checkpoint_s=0.2)
    rec(MessageEnd(session="ses_r", message=user("q")))
    rec(TurnStart(session="ses_r", turn_id="t1"))
    rec(TextDelta(session="ses_r", text="Hel"))  # the first delta is written at once
    rec(TextDelta(session="ses_r", text="lo"))  # this one waits for the timer
    assert store.tail("ses_r", 1)[0].text == "Hel"
    await asyncio.sleep(0.35)  # no more deltas arrive: the timer writes what we have
    last = store.tail("ses_r", 1)[0]
    assert last.text == "Hello" and last.partial


def test_task_children_are_linked_to_their_parent_and_call(store):
    rec = Recorder(store, session_id="ses_root", cwd="/proj", model="m")
    rec(MessageEnd(session="ses_root", message=user("delegate it")))
    rec(
        TaskStart(
            session="ses_kid",
            task_id="task_1",
            parent_session="ses_root",
            prompt="look around\nplease",
            agent="flue-general",
            cwd="/proj/sub",
            tool_call_id="call_7",
        )
    )
    rec(MessageEnd(session="ses_kid", task_id="task_1", parent_session="ses_root", message=user("look around")))
    rec(TextDelta(session="ses_kid", task_id="task_1", parent_session="ses_root", text="searching"))
    kid = store.get("ses_kid")
    assert (kid.parent_id, kid.parent_tool_call_id, kid.task_id, kid.agent, kid.cwd) == (
        "ses_root",
        "call_7",
        "task_1",
        "flue-general",
        "/proj/sub",
    )
    assert kid.title == "look around please"
    assert [m.text for m in store.iter_messages("ses_kid")] == ["look around", "searching"]
    assert [s.id for s in store.list_sessions("/proj")] == ["ses_root"]  # tasks are not listed as sessions


def test_nothing_is_written_until_the_first_message(store):
    rec = Recorder(store, session_id="ses_idle", cwd="/proj", name="later")
    rec(TurnStart(session="ses_idle", turn_id="t"))
    assert store.get("ses_idle") is None


def test_a_name_taken_meanwhile_keeps_the_conversation(store, capsys):
    store.create("ses_first", cwd="/proj", name="dup")
    rec = Recorder(store, session_id="ses_second", cwd="/proj", name="dup")
    rec(MessageEnd(session="ses_second", message=user("hello")))
    info = store.get("ses_second")
    assert info.name is None and info.message_count == 1
    assert "dup" in capsys.readouterr().err


def test_a_failing_database_is_reported_once_and_the_run_goes_on(store, capsys):
    rec = Recorder(store, session_id="ses_x", cwd="/proj")
    store.conn.close()
    for _ in range(3):
        rec(MessageEnd(session="ses_x", message=user("lost")))
    err = capsys.readouterr().err
    assert err.count("Could not save the session") == 1


async def test_a_run_that_failed_before_any_turn_leaves_no_session(fakellm, make_session, db_path):
    fakellm.script([Turn(status=401, error_message="Incorrect API key provided"), Turn(text="answered")])
    store = SessionStore.open(db_path)
    session = make_session([])
    session.subscribe(Recorder(store, session_id=session.id, cwd="/proj", model="openai/fake"))
    result = await session.prompt("hello")
    assert result.is_error
    assert store.get(session.id) is None and store.list_sessions("/proj") == []
    # The next prompt that gets an answer is saved, with the history the model saw.
    await session.prompt("again")
    saved = [m.data for m in store.iter_messages(session.id)]
    assert [m["role"] for m in saved] == [m.role for m in session.messages]
    assert store.get(session.id).message_count == len(session.messages)


async def test_a_failure_after_an_answer_keeps_the_session(fakellm, make_session, db_path):
    fakellm.script([Turn(text="first"), Turn(status=401, error_message="Incorrect API key provided")])
    store = SessionStore.open(db_path)
    session = make_session([])
    session.subscribe(Recorder(store, session_id=session.id, cwd="/proj", model="openai/fake"))
    await session.prompt("hello")
    await session.prompt("more")
    assert store.get(session.id).message_count == 4
