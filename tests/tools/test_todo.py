"""todo_write (issue 26): strict arguments refused in one sentence, the plan as a typed detail,
the last one read back from a history, stream-json carrying the call, inline printing a change."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from flue_tui.core import events as ev
from flue_tui.core.abort import ToolError
from flue_tui.core.details import PlanDetails, Todo, wire
from flue_tui.core.messages import ToolResultMessage
from flue_tui.inline.renderer import Renderer
from flue_tui.tools.todo import DONE_TEXT, TodoWriteTool, check_todos, latest_plan
from tests.fakellm import Call, Turn

PLAN = [
    {"content": "Read the failing test", "status": "completed"},
    {"content": "Fix add()", "status": "in_progress"},
    {"content": "Run the suite", "status": "pending"},
]


def test_a_good_plan_is_a_typed_detail_that_round_trips():
    plan = check_todos({"todos": PLAN})
    assert plan == PlanDetails((Todo("Read the failing test", "completed"), Todo("Fix add()", "in_progress"),
                               Todo("Run the suite", "pending")))  # fmt: skip
    assert wire(plan) == {"todos": PLAN}
    assert TodoWriteTool.traits.read_details(wire(plan)) == plan
    assert check_todos({"todos": []}) == PlanDetails(())  # clearing the plan is allowed
    assert check_todos({"todos": [{"content": "a\n\tb\x1b[2J", "status": "pending"}]}).todos[0].content == "a b\x1b[2J"


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ({}, "todo_write needs `todos`: a list of {content, status} objects."),
        ({"todos": "x"}, "todo_write needs `todos`: a list of {content, status} objects."),
        ({"todos": [], "extra": 1}, "todo_write takes only a `todos` list; unexpected: extra."),
        ({"todos": ["x"]}, "todos[0] must be an object with exactly `content` and `status`."),
        ({"todos": [{"content": "a"}]}, "todos[0] must be an object with exactly `content` and `status`."),
        (
            {"todos": [{"content": "a", "status": "pending", "id": "1"}]},
            "todos[0] must be an object with exactly `content` and `status`.",
        ),
        ({"todos": [{"content": "  ", "status": "pending"}]}, "todos[0].content must be a non-empty string."),
        ({"todos": [{"content": 3, "status": "pending"}]}, "todos[0].content must be a non-empty string."),
        (
            {"todos": [{"content": "a", "status": "done"}]},
            "todos[0].status must be one of pending, in_progress, completed, not 'done'.",
        ),
        (
            {"todos": [{"content": "a", "status": None}]},
            "todos[0].status must be one of pending, in_progress, completed, not None.",
        ),
        ({"todos": [{"content": "a" * 501, "status": "pending"}]}, "todos[0].content is 501 characters; at most 500."),
        (
            {"todos": [{"content": "a", "status": "pending"}] * 101},
            "todo_write takes at most 100 todos, got 101; keep the plan short.",
        ),
    ],
)
def test_bad_input_gets_one_sentence(args, text):
    with pytest.raises(ToolError) as caught:
        check_todos(args)
    assert str(caught.value) == text


def test_hostile_stored_details_are_dropped_not_raised_on():
    assert TodoWriteTool.traits.read_details(
        {"todos": [{"content": 1, "status": "pending"}, "x", {"content": "ok"}]}
    ) == PlanDetails(())
    assert TodoWriteTool.traits.read_details({"todos": "nope"}) == PlanDetails(())


def test_the_latest_plan_is_the_last_successful_call():
    first = wire(check_todos({"todos": PLAN[:1]}))
    second = wire(check_todos({"todos": PLAN}))
    messages = [
        ToolResultMessage("a", "todo_write", DONE_TEXT, details=first),
        ToolResultMessage("b", "todo_write", DONE_TEXT, details=second),
        ToolResultMessage("c", "todo_write", "todos[0] must be …", is_error=True),
        ToolResultMessage("d", "bash", "x", details={"command": "ls"}),
    ]
    assert latest_plan(messages) == check_todos({"todos": PLAN})
    assert latest_plan(messages[3:]) is None


def test_print_mode_runs_it_and_stream_json_carries_the_call(fakellm, flue_main):
    calls = [
        Call("todo_write", {"todos": PLAN}, id="p1"),
        Call("todo_write", {"todos": [{"content": "x", "status": "done"}]}, id="p2"),
    ]
    fakellm.script([Turn(calls=calls), Turn(text="planned")])
    out = flue_main("-p", "plan it", "--model", "openai/fake", "--output-format", "stream-json", "--verbose")
    assert out.code == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    uses = [b for m in lines if m["type"] == "assistant" for b in m["message"]["content"] if b["type"] == "tool_use"]
    assert [(u["name"], u["input"]) for u in uses] == [("todo_write", {"todos": PLAN}), ("todo_write", {"todos": [{"content": "x", "status": "done"}]})]  # fmt: skip
    texts = {m["tool_call_id"]: m["content"] for m in fakellm.requests[1]["messages"] if m["role"] == "tool"}
    assert texts["p1"] == DONE_TEXT
    assert texts["p2"] == "todos[0].status must be one of pending, in_progress, completed, not 'done'."
    names = [t["function"]["name"] for t in fakellm.requests[0]["tools"]]
    assert names[:6] == ["read", "write", "edit", "bash", "grep", "glob"] and "todo_write" in names


def _plan_events(s: str, call: str, todos: list[dict[str, str]]) -> list[ev.Event]:
    result = {"content": [{"type": "text", "text": DONE_TEXT}], "details": {"todos": todos}}
    return [
        ev.ToolStart(
            session=s,
            tool_name="todo_write",
            tool_call_id=call,
            args={"todos": todos},
            kind="other",
            traits=TodoWriteTool.traits,
        ),
        ev.ToolEnd(
            session=s,
            tool_name="todo_write",
            tool_call_id=call,
            is_error=False,
            result=result,
            duration_ms=1,
            outcome="ok",
        ),
    ]


async def test_inline_prints_the_plan_when_it_changes():
    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=80, force_terminal=True, color_system=None), "/tmp")
    renderer.begin_turn("plan it")
    s = "ses_root"
    for event in (
        ev.OperationStart(session=s, operation_id="op1"),
        ev.TurnStart(session=s, turn_id="t1"),
        *_plan_events(s, "p1", PLAN),
        *_plan_events(s, "p2", PLAN),  # the same plan again: not printed twice
        *_plan_events(s, "p3", [{**t, "status": "completed"} for t in PLAN]),
        ev.Operation(session=s, operation_id="op1", operation_kind="prompt", duration_ms=3, is_error=False),
    ):
        renderer.handle(event)
    renderer.finish()
    text = out.getvalue()
    assert text.count("▶ Fix add()") == 1 and text.count("☐ Run the suite") == 1
    assert text.count("☑ Run the suite") == 1 and "3 todos, 3 done" in text
