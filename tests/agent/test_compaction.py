"""Compaction through the real client against the scripted server: threshold, overflow, split turn."""

from __future__ import annotations

from flue_tui.agent import compaction_prompts as prompts
from flue_tui.agent.compaction import CompactionConfig
from flue_tui.agent.session import Session
from flue_tui.core.events import Compaction, CompactionStart
from flue_tui.core.messages import (
    AssistantMessage,
    CompactionMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from flue_tui.model.litellm_client import LiteLLMClient
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.tools import builtin_tools
from tests.agent.conftest import EchoAfter
from tests.fakellm import CONTEXT_OVERFLOW_MESSAGE, Call, Turn

BIG = "A" * 400


def session_with(fakellm, *, keep: int, window: int | None = 3000, auto: bool = True) -> Session:
    client = LiteLLMClient("openai/fake", api_base=fakellm.base_url, api_key="sk-test", context_window=window)
    return Session(
        model=client,
        tools=[EchoAfter()],
        system_prompt="SYS",
        retry_base_ms=5,
        compaction=CompactionConfig(auto=auto, keep_recent_tokens=keep),
    )


def summariser_request(request: dict) -> tuple[str, str]:
    assert request["messages"][0]["role"] == "system" and "tools" not in request
    return request["messages"][0]["content"], request["messages"][1]["content"]


async def first_exchange(fakellm, session: Session) -> None:
    fakellm.script([Turn(calls=[Call("echo_after", {"text": BIG})]), Turn(text="first done", usage=(100, 10))])
    await session.prompt("first task")


async def test_threshold_compaction_exact_request_and_next_context(fakellm):
    session = session_with(fakellm, keep=5)
    events = []
    session.subscribe(events.append)
    await first_exchange(fakellm, session)
    # 2,500 tokens used > window 3,000 - reserve 1,024: compaction runs after this run.
    fakellm.script([Turn(text="second done", usage=(2500, 10)), Turn(text="THE SUMMARY")])
    await session.prompt("second task")
    system, user = summariser_request(fakellm.requests[-1])
    assert system == prompts.SYSTEM
    assert user == (
        "<conversation>\n"
        "[User]: first task\n\n"
        f'[Assistant tool calls]: echo_after(text="{BIG}")\n\n'
        f"[Tool result]: echo: {BIG}\n\n"
        "[Assistant]: first done\n"
        "</conversation>\n\n" + prompts.FIRST
    )
    assert fakellm.requests[-1]["max_tokens"] == min(int(0.8 * 1024), 16000)
    start = next(e for e in events if isinstance(e, CompactionStart))
    done = next(e for e in events if isinstance(e, Compaction))
    assert start.reason == "threshold" and done.messages_before == 6 and done.messages_after == 3
    fakellm.script([Turn(text="third done")])
    await session.prompt("third task")
    sent = fakellm.requests[-1]["messages"]
    assert sent == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": '<compaction type="context_summary">\nTHE SUMMARY\n</compaction>'},
        {"role": "user", "content": "second task"},
        {"role": "assistant", "content": "second done"},
        {"role": "user", "content": "third task"},
    ]
    # Nothing is lost: the full history is still there, with a marker where compaction happened.
    roles = [m.role for m in session.messages]
    assert roles == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
        "compaction",
        "user",
        "assistant",
    ]


async def test_no_auto_compact_never_compacts_on_threshold(fakellm):
    session = session_with(fakellm, keep=5, auto=False)
    await first_exchange(fakellm, session)
    fakellm.script([Turn(text="second done", usage=(2900, 10))])
    await session.prompt("second task")
    assert fakellm.remaining == 0 and len(fakellm.requests) == 3
    assert not any(isinstance(m, CompactionMessage) for m in session.messages)


async def test_overflow_compacts_and_retries_once(fakellm):
    session = session_with(fakellm, keep=1, window=None)
    fakellm.script([Turn(text="answer one")])
    await session.prompt("one")
    fakellm.script([Turn.context_overflow(), Turn(text="SUMMARY OF ONE"), Turn(text="recovered")])
    result = await session.prompt("two")
    assert result.text == "recovered" and not result.is_error
    _, user = summariser_request(fakellm.requests[-2])
    assert user.startswith("<conversation>\n[User]: one\n\n[Assistant]: answer one\n</conversation>")
    assert [m["content"] for m in fakellm.requests[-1]["messages"][1:]] == [
        '<compaction type="context_summary">\nSUMMARY OF ONE\n</compaction>',
        "two",
    ]
    # A second overflow after recovery is the operation's error.
    fakellm.script([Turn.context_overflow(), Turn(text="S2"), Turn.context_overflow()])
    failed = await session.prompt("three")
    assert failed.is_error and CONTEXT_OVERFLOW_MESSAGE.split(".")[0] in failed.error


async def test_split_turn_summarises_the_prefix_and_keeps_the_request(fakellm):
    session = session_with(fakellm, keep=50)
    fakellm.script(
        [
            Turn(calls=[Call("echo_after", {"text": BIG})]),
            Turn(text="working", calls=[Call("echo_after", {"text": "small"})]),
            Turn(text="all done", usage=(2500, 10)),
            Turn(
                text="PREFIX SUMMARY",
                match=lambda body: "PREFIX of a turn" in str(body) or "BEGINNING of a turn" in str(body),
            ),
        ]
    )
    await session.prompt("big task with <tags> & more")
    _system, user = summariser_request(fakellm.requests[-1])
    assert user.startswith("<conversation>\n[User]: big task with <tags> & more\n\n[Assistant tool calls]: echo_after(")
    assert user.endswith(prompts.TURN_PREFIX)
    marker = session.messages[-1]
    assert isinstance(marker, CompactionMessage)
    assert marker.summary == prompts.NO_PRIOR_HISTORY + prompts.SPLIT_TURN_HEADING + "PREFIX SUMMARY"
    assert marker.request == "big task with <tags> & more"
    fakellm.script([Turn(text="next")])
    await session.prompt("follow up")
    sent = fakellm.requests[-1]["messages"]
    assert sent[1]["content"] == (
        '<compaction type="context_summary">\n'
        + prompts.NO_PRIOR_HISTORY
        + prompts.SPLIT_TURN_HEADING
        + "PREFIX SUMMARY\n</compaction>"
    )
    assert sent[2] == {"role": "user", "content": "big task with <tags> & more"}
    assert sent[3]["role"] == "assistant" and sent[3]["content"] == "working"
    assert [m["role"] for m in sent[4:]] == ["tool", "assistant", "user"]


async def test_manual_compact_with_focus(fakellm):
    session = session_with(fakellm, keep=2, window=None)
    fakellm.script([Turn(text="read and wrote"), Turn(text="ok")])
    await session.prompt("one")
    await session.prompt("two")
    fakellm.script([Turn(text="MANUAL")])
    result = await session.compact("the database schema")
    assert result.text == "Compacted." and not result.is_error
    _, user = summariser_request(fakellm.requests[-1])
    assert user == (
        "<conversation>\n[User]: one\n\n[Assistant]: read and wrote\n</conversation>\n\n"
        + prompts.FIRST
        + prompts.focus_note("the database schema")
    )
    assert (await session_with(fakellm, keep=1, window=None).compact()).text == (
        "Nothing to compact: there are no messages since the start or the last compaction."
    )


async def test_nothing_to_compact_says_why(fakellm):
    session = session_with(fakellm, keep=20000, window=None)
    fakellm.script([Turn(text="hello back")])
    await session.prompt("hi")
    result = await session.compact()
    assert not result.is_error
    assert result.text.startswith("Nothing to compact: the conversation is too short (2 messages, ~")
    assert result.text.endswith("tokens); the most recent ~20000 tokens are always kept verbatim.")


async def test_file_lists_and_update_prompt_on_second_compaction(fakellm):
    calls = [
        ToolCall("c1", "read", {"path": "a.py"}),
        ToolCall("c2", "edit", {"path": "b.py"}),
        ToolCall("c3", "read", {"path": "b.py"}),
    ]
    history = [
        UserMessage("fix b"),
        AssistantMessage(tool_calls=calls, stop_reason="tool_calls"),
        *[ToolResultMessage(c.id, c.name, "ok") for c in calls],
        AssistantMessage(text="fixed"),
        UserMessage("thanks"),
    ]
    session = session_with(fakellm, keep=1, window=None)
    # What was read and changed is told by the tools' kinds and path arguments: the session has them.
    session.tools.update({t.name: t for t in builtin_tools(LocalSandbox("."))})
    session.messages.extend(history)
    fakellm.script([Turn(text="S1")])
    await session.compact()
    marker = session.messages[-1]
    assert marker.summary == "S1\n\n<read-files>\na.py\n</read-files>\n\n<modified-files>\nb.py\n</modified-files>"
    session.messages.extend([AssistantMessage(text="you're welcome"), UserMessage("bye")])
    fakellm.script([Turn(text="S2")])
    await session.compact()
    _, user = summariser_request(fakellm.requests[-1])
    assert user == (
        "<conversation>\n[User]: thanks\n\n[Assistant]: you're welcome\n</conversation>\n\n"
        f"<previous-summary>\n{marker.summary}\n</previous-summary>\n\n" + prompts.UPDATE
    )
    assert session.messages[-1].read_files == ["a.py"] and session.messages[-1].modified_files == ["b.py"]
