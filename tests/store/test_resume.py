"""Rebuilding the model context: what a crash left open is closed so a provider accepts it."""

from __future__ import annotations

from flue_tui.core.messages import AssistantMessage, ToolResultMessage, UserMessage, to_wire
from flue_tui.store.resume import INTERRUPTED_TOOL_TEXT
from tests.store.conftest import assistant, result, user


def assert_valid_wire(wire: list[dict]) -> None:
    """OpenAI's rule: each assistant tool call is answered by a tool message, directly after it."""
    i = 0
    while i < len(wire):
        msg = wire[i]
        i += 1
        if msg["role"] == "tool":
            raise AssertionError(f"tool message without a call: {msg}")
        calls = [c["id"] for c in msg.get("tool_calls") or []]
        answered = []
        while i < len(wire) and wire[i]["role"] == "tool":
            answered.append(wire[i]["tool_call_id"])
            i += 1
        assert sorted(answered) == sorted(calls), (calls, answered)


def test_flue_interrupted_text_is_exact():
    assert INTERRUPTED_TOOL_TEXT == (
        '{"type":"interrupted","message":"Tool execution was interrupted before completion. The outcome is unknown."}'
    )


def test_a_complete_history_comes_back_unchanged(store):
    store.create("s", cwd="/p")
    msgs = [user("q"), assistant("", calls=[("c1", "read")]), result("c1", "x"), assistant("a")]
    for m in msgs:
        store.append("s", m)
    context = store.load_context("s")
    assert [type(m) for m in context] == [UserMessage, AssistantMessage, ToolResultMessage, AssistantMessage]
    assert context[1].tool_calls[0].arguments == {"path": "a"}
    assert_valid_wire(to_wire("sys", context))


def test_unanswered_calls_get_the_interrupted_result_right_after_their_message(store):
    store.create("s", cwd="/p")
    store.append("s", user("q"))
    store.append("s", assistant("", calls=[("c1", "read"), ("c2", "bash"), ("c3", "grep")]))
    store.append("s", result("c2", "done"))
    store.append("s", user("the next prompt, after a resume"))
    context = store.load_context("s")
    results = [m for m in context if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.text, r.is_error) for r in results] == [
        ("c2", "done", False),
        ("c1", INTERRUPTED_TOOL_TEXT, True),
        ("c3", INTERRUPTED_TOOL_TEXT, True),
    ]
    assert results[1].tool_name == "read"
    assert isinstance(context[-1], UserMessage)
    assert_valid_wire(to_wire("sys", context))
    # Derived, never written: the record still says what happened.
    assert store.get("s").message_count == 4


def test_a_cut_off_stream_keeps_its_text_and_tells_the_model(store):
    store.create("s", cwd="/p")
    store.append("s", user("q"))
    store.append("s", {"role": "assistant", "text": "half an ans", "thinking": "", "model": "m"}, partial=True)
    context = store.load_context("s")
    assert isinstance(context[1], AssistantMessage) and context[1].text == "half an ans"
    assert context[2] == UserMessage(
        content='<signal type="stream_interrupted">\nThe previous assistant stream was interrupted.\n</signal>'
    )
    assert_valid_wire(to_wire("sys", context))


def test_an_empty_draft_is_skipped_and_orphans_dropped(store):
    store.create("s", cwd="/p")
    store.append("s", user("q"))
    store.append("s", {"role": "assistant", "text": "", "thinking": "", "model": "m"}, partial=True)
    store.append("s", result("lost", "no call for me"))
    assert [type(m) for m in store.load_context("s")] == [UserMessage]


def test_aborted_turns_stay_out_of_the_context_without_closures(store):
    store.create("s", cwd="/p")
    store.append("s", user("q"))
    store.append("s", assistant("partial", calls=[("c1", "read")], stop_reason="aborted"))
    store.append("s", user("again"))
    context = store.load_context("s")
    assert not [m for m in context if isinstance(m, ToolResultMessage)]
    wire = to_wire("sys", context)
    assert [m["role"] for m in wire] == ["system", "user", "user"]


def test_a_compaction_marker_comes_back_and_shapes_the_context(store):
    from flue_tui.core.messages import CompactionMessage, message_to_dict, model_context

    store.create("s", cwd="/p")
    for m in [user("old question"), assistant("old answer"), user("recent question"), assistant("recent answer")]:
        store.append("s", m)
    marker = CompactionMessage(summary="We talked about the old question.", kept=2, tokens_before=900)
    store.append("s", message_to_dict(marker))
    store.append("s", user("after the summary"))
    context = store.load_context("s")
    assert context[4] == marker
    sent = [getattr(m, "content", getattr(m, "text", "")) for m in model_context(context)]
    assert "old question" not in sent and sent[-3:] == ["recent question", "recent answer", "after the summary"]
    assert [h.seq for h in store.search("talked")] == [5]  # summaries are searchable too
