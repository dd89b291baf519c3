"""What a resume rebuilds from the store is what a live run showed (issue 17): nested task
children with their steps, tool durations, a prompt as typed; and a stored (or imported) row
cannot break that with the wrong types or smuggle terminal escapes onto the screen."""

from __future__ import annotations

from typing import Any

import pytest

from flue_tui.core.messages import ToolResultMessage, UserMessage, message_from_dict, message_to_dict
from flue_tui.store.importing import ImportProblem, import_json
from flue_tui.store.recorder import typed
from flue_tui.store.sessions import SessionStore
from flue_tui.tools.bash import BashTool
from flue_tui.tools.task import TaskTool
from flue_tui.ui.backfill import make_backfill
from flue_tui.ui.transcript import ReplyEntry, TaskEntry, ToolEntry, UserEntry

# The resumed session's tools: these rows are stored as before kinds were recorded, so the kind of
# each call comes from the tool of its name, as in the app and inline mode.
TOOLS = {"task": TaskTool, "bash": BashTool}


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "text": "", "tool_calls": [{"id": cid, "name": name, "arguments": args}]}


def result(cid: str, name: str, text: str, ms: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "toolResult", "tool_call_id": cid, "tool_name": name, "text": text}
    if ms is not None:
        out["duration_ms"] = ms
    return out


def nested(store: SessionStore) -> None:
    """root → task (call t1) → child → task (call t2) → grandchild running bash."""
    store.create("root", cwd="/w")
    for m in (
        {"role": "user", "content": 'Run the skill named "x".', "display": "/x now"},
        call("t1", "task", {"prompt": "outer job", "agent": "flue-general"}),
        result("t1", "task", "outer done", 900),
        {"role": "assistant", "text": "All done."},
    ):
        store.append("root", m)
    store.create("kid", cwd="/w", parent_id="root", parent_tool_call_id="t1", agent="flue-general")
    for m in (
        {"role": "user", "content": "outer job"},
        call("t2", "task", {"prompt": "inner job", "agent": "flue-general"}),
        result("t2", "task", "inner done", 500),
        {"role": "assistant", "text": "outer \x1b]52;c;cHduZWQ=\x07done"},
    ):
        store.append("kid", m)
    store.create("grandkid", cwd="/w", parent_id="kid", parent_tool_call_id="t2", agent="flue-general")
    for m in (
        {"role": "user", "content": "inner job"},
        call("b1", "bash", {"command": "echo hi"}),
        result("b1", "bash", "hi\n", 8400),
        {"role": "assistant", "text": "inner done"},
    ):
        store.append("grandkid", m)


def test_backfill_nests_children_with_their_steps_and_durations():
    with SessionStore.open(":memory:") as store:
        nested(store)
        entries = make_backfill(store.load_context("root"), "/w", store, "root", tools=TOOLS)(100)
        user, task, reply = entries
        assert isinstance(reply, ReplyEntry) and reply.text == "All done."
        assert isinstance(user, UserEntry) and user.text == "/x now"
        assert isinstance(task, TaskEntry) and task.duration_ms == 900 and task.session_id == "kid"
        assert task.child is not None and task.child.depth == 1
        inner = next(e for e in task.child.entries if isinstance(e, TaskEntry))
        assert inner.duration_ms == 500 and inner.child is not None
        bash = next(e for e in inner.child.entries if isinstance(e, ToolEntry))
        assert (bash.name, bash.duration_ms, bash.result_text) == ("bash", 8400, "hi\n")
        assert task.child.calls["t2"] is inner  # approvals and events find the child's calls
        said = next(e for e in task.child.entries if isinstance(e, ReplyEntry))
        assert "\x1b" not in said.text and "\x07" not in said.text  # shown, never obeyed
        assert not any(isinstance(e, UserEntry) for e in task.child.entries)  # the prompt is the block's


def test_a_damaged_store_leaves_the_task_block_with_prompt_and_answer():
    store = SessionStore.open(":memory:")
    nested(store)
    messages = store.load_context("root")
    store.close()  # any read failure (here: the store went away meanwhile), never a traceback
    task = make_backfill(messages, "/w", store, "root", tools=TOOLS)(100)[1]
    assert isinstance(task, TaskEntry) and task.child is None and task.answer == "outer done"


@pytest.mark.parametrize("bad", ["8.4s", -1, True, 1.5, None])
def test_a_stored_duration_of_the_wrong_type_is_no_duration(bad):
    m = message_from_dict(result("c", "bash", "x", bad) if bad is not None else result("c", "bash", "x"))
    assert isinstance(m, ToolResultMessage) and m.duration_ms is None


def test_display_round_trips_and_is_left_out_when_unset():
    assert message_to_dict(UserMessage(content="hi")) == {"content": "hi", "role": "user"}
    m = message_from_dict({"role": "user", "content": "long", "display": "/x"})
    assert isinstance(m, UserMessage) and m.display == "/x"
    assert message_from_dict({"role": "user", "content": "c", "display": ["x"]}).display is None  # type: ignore[union-attr]
    assert (
        typed(
            {
                "role": "user",
                "content": "fix it\n\nContents of a.py …",
                "display": "fix @a.py\n  ⎿ attached a.py (3 lines)",
            }
        )
        == "fix @a.py"
    )


@pytest.mark.parametrize(
    "message, what",
    [
        ({"role": "user", "content": "c", "display": 5}, '"display"'),
        (result("c", "bash", "x", "8.4s"), '"duration_ms"'),
        (result("c", "bash", "x", -3), '"duration_ms"'),
    ],
)
def test_an_import_with_a_wrong_display_or_duration_is_refused(message, what):
    data = {"session": {"id": "ses_x", "cwd": "/w"}, "messages": [{**message, "seq": 1}]}
    with SessionStore.open(":memory:") as store, pytest.raises(ImportProblem, match=what):
        import_json(store, data)
