"""The conversation view against the scripted server: text, tools, bash tail, tasks, Esc, queue."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from flue_tui.tui.widgets.reply import ReplyView
from flue_tui.tui.widgets.task import TaskView
from flue_tui.tui.widgets.tool import ToolView
from flue_tui.ui.transcript import ReplyEntry, TaskEntry, ToolEntry, UserEntry
from tests.fakellm.script import Call, Turn
from tests.tui.conftest import idle, loaded, ready, screen_text, submit, wait_for


def _tools(app) -> list[ToolEntry]:
    return [e for e in app.transcript.entries if isinstance(e, ToolEntry)]


async def test_prompt_streams_markdown(make_app, fakellm):
    text = "Here is **the plan**:\n\n1. read the file\n2. fix the bug\n\nThat is all, " + "really " * 12
    rest = threading.Event()  # the stream stops after "Here is **the plan**:\n\n1. read t" until set
    fakellm.script(Turn(text=text, stall_after=5, hold=rest))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)  # the Markdown stack too: before it, a streaming reply is drawn plain
        await submit(pilot, "make a plan")
        # Part of the reply is on screen while the rest is still streaming.
        await wait_for(pilot, lambda: "the plan" in screen_text(pilot.app))
        reply = next(e for e in app.transcript.entries if isinstance(e, ReplyEntry))
        shown = reply.view.md.source
        assert not reply.done and text.startswith(shown) and len(shown) < len(text)
        rest.set()
        await idle(pilot)
        assert reply.done and reply.text == text
        view = reply.view
        assert isinstance(view, ReplyView) and view.md.source == text
        screen = screen_text(app)
        assert "make a plan" in screen and "1. read the file" in screen and "That is all, really" in screen
        assert isinstance(app.transcript.entries[1], UserEntry)  # after the welcome


async def test_read_block_shows_path_and_line_count(make_app, fakellm, work: Path):
    (work / "notes.txt").write_text("one\ntwo\nthree\n")
    fakellm.script([Turn(calls=[Call("read", {"path": "notes.txt"})]), Turn(text="Read it.")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "read notes")
        await idle(pilot)
        [read] = _tools(app)
        assert read.status == "ok" and read.details.get("path")
        line = next(ln for ln in screen_text(app).splitlines() if "read" in ln and "notes.txt" in ln)
        assert "✓" in line and "lines" in line
        # Collapsed, the file's text is not shown; a click on the header expands the full result.
        assert "three" not in screen_text(app)
        await pilot.click(ToolView, offset=(4, 0))
        await wait_for(pilot, lambda: "three" in screen_text(app))


async def test_edit_block_shows_coloured_diff(make_app, fakellm, work: Path):
    (work / "app.py").write_text("def f():\n    return 1\n")
    fakellm.script(
        [
            Turn(calls=[Call("edit", {"path": "app.py", "oldText": "return 1", "newText": "return 2"})]),
            Turn(text="Fixed."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "fix it")
        await idle(pilot)
        [edit] = _tools(app)
        assert edit.status == "ok", edit.result_text
        assert "+return 2" in edit.details["diff"].replace("+    ", "+")
        screen = screen_text(app)
        assert "+1 −1" in screen
        assert "-    return 1" in screen and "+    return 2" in screen
        view = edit.view
        assert isinstance(view, ToolView)
        styles = {str(span.style) for span in view.render().spans}
        assert "green" in styles and "red" in styles


async def test_bash_tail_updates_before_the_command_ends(make_app, fakellm, work: Path):
    # The command goes on only when the test has looked: no race between its output and the screen.
    go = work / "go"
    command = f"echo hi; while [ ! -e {go} ]; do sleep 0.05; done; echo bye"
    fakellm.script([Turn(calls=[Call("bash", {"command": command})]), Turn(text="ok")])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "run")
        # Wait for the block's own lines, its header and the output line "hi": waiting for "hi"
        # anywhere below the prompt once returned, on a loaded machine, before the header was drawn.
        await wait_for(
            pilot,
            lambda: (
                any(e.status == "running" for e in _tools(app))
                and "hi" in [ln.strip() for ln in screen_text(app).split("▌ run", 1)[-1].splitlines()]
                and any("echo hi" in ln for ln in screen_text(app).splitlines())
            ),
        )
        [bash] = _tools(app)
        assert bash.status == "running"
        assert "bye" not in [ln.strip() for ln in screen_text(app).splitlines()]
        header = next(ln for ln in screen_text(app).splitlines() if "echo hi" in ln)
        assert header.rstrip().endswith("s")  # elapsed time while it runs
        go.touch()
        await idle(pilot)
        assert bash.status == "ok" and bash.details.get("exitCode") == 0
        screen = screen_text(app)
        assert "bye" in [ln.strip() for ln in screen.splitlines()] and "exit 0" in screen


async def test_two_parallel_tasks_nest_their_children(make_app, fakellm, work: Path):
    # Both children's commands run until the test has seen them live together (no clock decides it).
    go = work / "go"
    wait_go = f"while [ ! -e {go} ]; do sleep 0.05; done"
    fakellm.script(
        [
            Turn(
                match="delegate",
                calls=[
                    Call("task", {"prompt": "alpha job", "agent": "flue-general", "description": "alpha"}),
                    Call("task", {"prompt": "beta job", "agent": "flue-general", "description": "beta"}),
                ],
            ),
            Turn(match="alpha job", barrier="kids", calls=[Call("bash", {"command": f"echo alpha-out; {wait_go}"})]),
            Turn(match="beta job", barrier="kids", calls=[Call("bash", {"command": f"echo beta-out; {wait_go}"})]),
            Turn(match="alpha job", text="alpha answer"),
            Turn(match="beta job", text="beta answer"),
            Turn(match="delegate", text="Both done."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "delegate two jobs")
        # Both children are live at once, each in its own block, with its own nested bash.
        await wait_for(
            pilot,
            lambda: (
                len([v for v in app.query(TaskView) if v.steps is not None]) == 2
                and "alpha-out" in screen_text(app)
                and "beta-out" in screen_text(app)
            ),
        )
        tasks = [e for e in app.transcript.entries if isinstance(e, TaskEntry)]
        assert [t.agent for t in tasks] == ["flue-general", "flue-general"]
        assert all(t.child is not None for t in tasks)
        for task, word in zip(tasks, ("alpha", "beta"), strict=True):
            assert task.child is not None
            [child_bash] = [e for e in task.child.entries if isinstance(e, ToolEntry)]
            assert child_bash.args["command"].startswith(f"echo {word}-out")
            assert isinstance(child_bash.view, ToolView) and child_bash.view.parent is task.view.steps
        go.touch()
        await idle(pilot)
        # Finished children collapse to their answers.
        screen = screen_text(app)
        assert "alpha answer" in screen and "beta answer" in screen and "Both done." in screen
        assert all(v.steps is None for v in app.query(TaskView))
        assert "alpha-out" not in screen


async def test_escape_interrupts_a_long_command(make_app, fakellm, work: Path):
    pidfile = work / "pid"
    fakellm.script(
        [
            Turn(match="first", calls=[Call("bash", {"command": f"echo $$ > {pidfile}; sleep 30"})]),
            Turn(match="first", text="Back again."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "first")
        await wait_for(pilot, lambda: pidfile.exists() and pidfile.read_text().strip())
        pid = int(pidfile.read_text())
        await pilot.press("escape")  # how fast: bench/tui.py --part esc
        await wait_for(pilot, lambda: not app.busy)
        # The process group is gone (SIGTERM, then SIGKILL after the grace period).
        await wait_for(pilot, lambda: not _alive(pid))
        await idle(pilot)
        assert "Interrupted" in screen_text(app)
        # The history is valid: every tool call has its result, and the session carries on.
        messages = app.session.messages
        calls = {c.id for m in messages if m.role == "assistant" for c in m.tool_calls}
        results = {m.tool_call_id for m in messages if m.role == "toolResult"}
        assert calls and calls <= results
        await submit(pilot, "again")
        await idle(pilot)
        assert "Back again." in screen_text(app)
        body = fakellm.requests[-1]
        wire_calls = {c["id"] for m in body["messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []}
        wire_results = {m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"}
        assert wire_calls <= wire_results


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it has exited all the same.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


async def test_input_typed_while_working_is_queued(make_app, fakellm):
    rest = threading.Event()  # the first reply stays unfinished until the second prompt is queued
    fakellm.script(
        [Turn(match="first", text="slow " * 60, stall_after=3, hold=rest), Turn(match="first", text="second answer")]
    )
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "first")
        await wait_for(pilot, lambda: app.busy and "slow" in screen_text(app))
        await submit(pilot, "and then this")
        assert list(app.queue) == [("and then this", None, ())]  # text, display, images
        assert "queued: and then this" in screen_text(app)
        assert len(fakellm.requests) == 1
        rest.set()
        await idle(pilot)
        assert not app.queue_view.display
        assert len(fakellm.requests) == 2
        assert fakellm.requests[1]["messages"][-1] == {"role": "user", "content": "and then this"}
        assert "second answer" in screen_text(app)


async def test_at_path_attaches_the_file_and_the_transcript_shows_a_note(make_app, fakellm, work: Path):
    (work / "calc").mkdir()
    (work / "calc" / "ops.py").write_text("def add(a, b):\n    return a + b\n")
    fakellm.script(Turn(text="It adds."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"explain @calc/ops.py")
        # The list offers exactly what was typed; Enter sends rather than "accepting" it.
        await wait_for(pilot, lambda: app.completion.display and app.completion.choice == "@calc/ops.py ")
        await pilot.press("enter")
        await idle(pilot)
        sent = fakellm.requests[-1]["messages"][-1]["content"]
        assert sent.startswith("explain @calc/ops.py\n\nContents of calc/ops.py (2 lines):\n```\ndef add(a, b):")
        # The model got what the session keeps; the transcript shows what was typed and a note.
        assert app.session.messages[0].content == sent
        user = next(e for e in app.transcript.entries if isinstance(e, UserEntry))
        assert user.text == "explain @calc/ops.py\n  ⎿ attached calc/ops.py (2 lines)"
        assert "return a + b" not in screen_text(app)


async def test_a_commands_tail_says_the_hidden_lines_are_above_it(make_app, fakellm):
    fakellm.script([Turn(calls=[Call("bash", {"command": "seq 1 20"})]), Turn(text="ok")])
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "count")
        await idle(pilot)
        lines = [ln.strip() for ln in screen_text(app).splitlines()]
        more = lines.index("… 14 more lines above (click to expand)")
        assert lines[more + 1 : more + 7] == [str(n) for n in range(15, 21)]


async def test_task_list_items_render_as_boxes(make_app, fakellm):
    fakellm.script(Turn(text="Status:\n\n- [x] read the file\n- [ ] fix the bug\n", chunk_delay=0.02))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "status?")
        await idle(pilot)
        screen = screen_text(app)
        assert "☑ read the file" in screen and "☐ fix the bug" in screen and "[x]" not in screen
