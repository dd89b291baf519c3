"""`task` sub-sessions: fresh context, concurrency, call order, depth, events and abort."""

from __future__ import annotations

import asyncio

from flue_tui.core.events import TaskEnd, TaskStart, ToolStart
from tests.fakellm import Call, Turn

MATCH_TOOL = 'Subagent "ghost" is not declared. Available subagents: flue-general, tester.'


def system_of(request: dict) -> str:
    return request["messages"][0]["content"]


def tool_texts(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_two_parallel_tasks_fresh_context_concurrent_and_in_call_order(fakellm, runtime_for, tmp_path):
    (tmp_path / "a.txt").write_text("alpha file\n")
    (tmp_path / "b.txt").write_text("beta file\n")
    fakellm.script(
        [
            Turn(
                match="parent prompt",
                calls=[
                    Call("task", {"prompt": "child A: read a.txt", "agent": "flue-general", "description": "A"}),
                    Call("task", {"prompt": "child B: read b.txt", "agent": "flue-general"}),
                ],
            ),
            # Both children's first requests must be in flight together before either is answered.
            Turn(match="child A", barrier="kids", calls=[Call("read", {"path": "a.txt"})]),
            Turn(match="child B", barrier="kids", calls=[Call("read", {"path": "b.txt"})]),
            Turn(match="child B", text="B says beta", delay=0.2),
            Turn(match="child A", text="A says alpha"),
            Turn(match="parent prompt", text="both done"),
        ]
    )
    session, _ = runtime_for(tmp_path).new_session()
    events = []
    session.subscribe(events.append)
    result = await session.prompt("parent prompt")
    assert result.text == "both done"
    kids = [r for r in fakellm.requests if r["messages"][1]["content"].startswith("child")]
    for request in kids[:2]:  # each child starts from its prompt alone, with its own system prompt
        assert [m["role"] for m in request["messages"]] == ["system", "user"]
        assert not system_of(request).startswith("You are flue")  # flue-general is a blank delegate
    assert tool_texts(fakellm.requests[-1]) == ["A says alpha", "B says beta"]
    child_reads = [e for e in events if isinstance(e, ToolStart) and e.tool_name == "read"]
    assert {e.task_id for e in child_reads} == {e.task_id for e in events if isinstance(e, TaskStart)}
    assert all(e.parent_session == session.id for e in child_reads)
    starts = [e for e in events if isinstance(e, TaskStart)]
    ends = [e for e in events if isinstance(e, TaskEnd)]
    assert [e.prompt for e in starts] == ["child A: read a.txt", "child B: read b.txt"]
    assert {e.result for e in ends} == {"A says alpha", "B says beta"} and not any(e.is_error for e in ends)


async def test_unknown_agent_is_a_plain_answer_and_user_agents_use_their_instructions(fakellm, runtime_for, tmp_path):
    agents = tmp_path / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "tester.md").write_text("---\nname: tester\ndescription: Runs tests\n---\nYou only run tests.\n")
    fakellm.script(
        [
            Turn(
                match="go",
                calls=[
                    Call("task", {"prompt": "x", "agent": "ghost"}),
                    Call("task", {"prompt": "run them", "agent": "tester"}),
                    Call("task", {"prompt": "y", "agent": ""}),
                ],
            ),
            Turn(match="run them", text=""),
            Turn(match="go", text="ok"),
        ]
    )
    session, _ = runtime_for(tmp_path).new_session()
    await session.prompt("go")
    texts = tool_texts(fakellm.requests[-1])
    assert texts[0] == MATCH_TOOL
    assert texts[1] == "(task completed with no text)"
    assert texts[2].startswith('Validation failed for tool "task":\n  - agent: must not have fewer than 1 characters')
    child = next(r for r in fakellm.requests if r["messages"][1]["content"] == "run them")
    assert system_of(child).startswith("You only run tests.\n\n")


async def test_child_cwd_discovers_its_own_agents_md(fakellm, runtime_for, tmp_path):
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "AGENTS.md").write_text("Package rules.")
    fakellm.script(
        [
            Turn(match="go", calls=[Call("task", {"prompt": "in pkg", "agent": "flue-general", "cwd": "pkg"})]),
            Turn(match="in pkg", text="seen"),
            Turn(match="go", text="ok"),
        ]
    )
    session, _ = runtime_for(tmp_path).new_session()
    await session.prompt("go")
    child = next(r for r in fakellm.requests if r["messages"][1]["content"] == "in pkg")
    assert system_of(child).startswith("Package rules.\n\n")
    assert f"Working directory: {sub}\n" in system_of(child)


async def test_depth_limit(fakellm, runtime_for, tmp_path):
    turns = []
    for level in range(5):  # level 0 is the root; level 4 may not delegate
        turns.append(
            Turn(
                match=f"level {level}", calls=[Call("task", {"prompt": f"level {level + 1}", "agent": "flue-general"})]
            )
        )
    for level in range(5):
        turns.append(Turn(match=f"level {level}", text=f"answer {level}"))
    fakellm.script(turns)
    session, _ = runtime_for(tmp_path).new_session()
    result = await session.prompt("level 0")
    assert result.text == "answer 0"
    deepest = [r for r in fakellm.requests if r["messages"][1]["content"] == "level 4"][-1]
    assert tool_texts(deepest) == ["Maximum delegation depth (4) exceeded."]
    assert not any(r["messages"][1]["content"] == "level 5" for r in fakellm.requests)


async def test_abort_reaches_running_children(fakellm, runtime_for, tmp_path):
    fakellm.script(
        [
            Turn(match="go", calls=[Call("task", {"prompt": "sleepy", "agent": "flue-general"})]),
            Turn(match="sleepy", calls=[Call("bash", {"command": "sleep 30"})]),
            Turn(match="sleepy", text="never"),
        ]
    )
    session, _ = runtime_for(tmp_path).new_session()
    events = []
    session.subscribe(events.append)
    run = asyncio.ensure_future(session.prompt("go"))
    while not any(isinstance(e, ToolStart) and e.tool_name == "bash" for e in events):
        await asyncio.sleep(0.02)
    session.abort()
    result = await asyncio.wait_for(run, 60)
    assert result.aborted
    ends = [e for e in events if isinstance(e, TaskEnd)]
    assert len(ends) == 1 and ends[0].is_error


async def test_child_end_precedes_parent_events_however_slow_the_wind_down(fakellm, runtime_for, tmp_path, monkeypatch):
    # A machine so loaded that no tool settles within the abandon window: the delegate must still
    # wait for its child, so the child's end comes before the parent's tool end and run's return.
    from flue_tui.agent import toolrun
    from flue_tui.core.events import ToolEnd

    monkeypatch.setattr(toolrun, "SETTLE_S", 0.0)
    fakellm.script(
        [
            Turn(match="go", calls=[Call("task", {"prompt": "sleepy", "agent": "flue-general"})]),
            Turn(match="sleepy", calls=[Call("bash", {"command": "sleep 30"})]),
            Turn(match="sleepy", text="never"),
        ]
    )
    session, _ = runtime_for(tmp_path).new_session()
    events = []
    session.subscribe(events.append)
    run = asyncio.ensure_future(session.prompt("go"))
    while not any(isinstance(e, ToolStart) and e.tool_name == "bash" for e in events):
        await asyncio.sleep(0.02)
    session.abort()
    result = await asyncio.wait_for(run, 60)
    assert result.aborted
    ends = [i for i, e in enumerate(events) if isinstance(e, TaskEnd)]
    task_tool_end = [i for i, e in enumerate(events) if isinstance(e, ToolEnd) and e.tool_name == "task"]
    assert len(ends) == 1 and len(task_tool_end) == 1
    assert ends[0] < task_tool_end[0]
