"""Arguments nested 100,000 levels deep go back to the model as one sentence; the run goes on.

Before: `json.loads` raised RecursionError in the model layer and `flue -p` exited 1 with
"maximum recursion depth exceeded" (invalid JSON already went back to the model).
"""

from __future__ import annotations

import json

import pytest

from flue_tui.core.jsonargs import MAX_ARGUMENT_DEPTH, TOO_DEEP, parse_arguments
from flue_tui.core.messages import message_to_dict
from flue_tui.sandbox.local import LocalSandbox
from flue_tui.store.recorder import Recorder
from flue_tui.store.sessions import SessionStore
from flue_tui.tools.read import ReadTool
from tests.fakellm import Call, Turn
from tests.store.conftest import make_session  # noqa: F401 - fixture

DEEP = '{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"


def nested(levels: int) -> str:
    """An object whose "path" holds containers nested so that the whole is `levels` deep."""
    return '{"path": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}"


def test_parse_bounds_depth_without_recursing():
    assert parse_arguments(DEEP) == ({}, TOO_DEEP)
    assert parse_arguments(nested(MAX_ARGUMENT_DEPTH + 1)) == ({}, TOO_DEEP)
    args, refusal = parse_arguments(nested(MAX_ARGUMENT_DEPTH))
    assert refusal is None and isinstance(args["path"], list)
    assert parse_arguments('{"path": "a"}') == ({"path": "a"}, None)
    assert parse_arguments("{not json") == ({}, None)  # invalid JSON: unchanged, validation explains
    assert parse_arguments("[1]") == ({}, None)
    assert parse_arguments("") == ({}, None)
    # An integer past Python's digit limit is a ValueError too, not a crash.
    assert parse_arguments('{"path": "a", "offset": ' + "9" * 5000 + "}") == ({}, None)
    assert TOO_DEEP.count(". ") == 0 and TOO_DEEP.endswith(".")  # one sentence


async def test_deep_call_is_a_tool_error_and_the_run_goes_on(fakellm, make_session, tmp_path):  # noqa: F811
    (tmp_path / "a.txt").write_text("hello\n")
    fakellm.script(
        [
            Turn(calls=[Call("read", DEEP), Call("read", {"path": "a.txt"})]),
            Turn(text="done"),
        ]
    )
    store = SessionStore.open(tmp_path / "sessions.db")
    session = make_session([ReadTool(LocalSandbox(str(tmp_path)))])
    session.subscribe(Recorder(store, session_id=session.id, cwd=str(tmp_path), model="openai/fake", name="deep"))
    result = await session.prompt("go")
    assert result.is_error is False and result.text == "done"
    sent = fakellm.requests[1]["messages"]
    calls = sent[-3]["tool_calls"]
    assert calls[0]["function"]["arguments"] == "{}"  # the deep text is not replayed to the provider
    assert sent[-2] == {"role": "tool", "tool_call_id": calls[0]["id"], "content": TOO_DEEP}
    assert sent[-1]["content"] == "hello\n"  # the sibling call in the same batch still ran
    # The store holds the conversation as it happened, nothing deep in it.
    saved = [m.data for m in store.iter_messages(session.id)]
    assert saved == [message_to_dict(m) for m in session.messages]
    assert len(json.dumps(saved)) < 10_000
    store.close()


@pytest.mark.parametrize("fmt", ["json"])
def test_cli_run_survives_deep_arguments(fakellm, flue_main, fmt):
    fakellm.script(
        [Turn(calls=[Call("bash", '{"command": ' + "[" * 100_000 + "]" * 100_000 + "}")]), Turn(text="recovered")]
    )
    out = flue_main("-p", "go", "--model", "openai/fake", "--output-format", fmt)
    assert out.code == 0, out.stderr
    assert json.loads(out.stdout)["result"] == "recovered"
    assert fakellm.requests[1]["messages"][-1]["content"] == TOO_DEEP
    assert "recursion" not in out.stderr


def test_every_later_step_handles_the_deepest_accepted_arguments():
    from flue_tui.core.messages import AssistantMessage, ToolCall, message_from_dict
    from flue_tui.core.validation import validate_arguments

    args, refusal = parse_arguments(nested(MAX_ARGUMENT_DEPTH))
    assert refusal is None
    schema = ReadTool(LocalSandbox("/")).parameters
    assert validate_arguments("read", schema, args)[1].startswith('Validation failed for tool "read"')
    message = AssistantMessage(tool_calls=[ToolCall(id="c", name="read", arguments=args)])
    stored = json.dumps(message_to_dict(message), indent=2)  # the recorder and the exports
    assert message_from_dict(json.loads(stored)) == message
