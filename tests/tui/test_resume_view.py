"""A resumed session reads exactly as it did live (issue 17): a task block keeps its child's steps
(tool calls, output, nested tasks), tools their durations, a skill run its typed `/name args`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flue_tui.runtime.start import SessionOptions
from tests.fakellm import Call, Turn
from tests.tui.conftest import idle, ready, status_bar, submit, wait_for

SIZE = (120, 100)

# The first user message names the conversation, so `match` tells the root's turns from the child's.
SCRIPT = [
    Turn(
        match="do the job",
        calls=[Call("task", {"prompt": "kid job: look around", "description": "look around", "agent": "flue-general"})],
    ),
    Turn(
        match="kid job",
        calls=[Call("bash", {"command": "echo kid-out-1; echo kid-out-2"}), Call("read", {"path": "notes.txt"})],
    ),
    Turn(match="kid job", text="**Kid report**: notes say *hi*.\n\n- [x] looked"),
    Turn(match="do the job", calls=[Call("bash", {"command": "sleep 2.1; echo slow-done"})]),
    Turn(match="do the job", text="All done: the kid says hi."),
    Turn(match="do the job", text="Release notes: nothing new."),  # the skill run
]


def workspace(work: Path) -> None:
    (work / "notes.txt").write_text("hi\n")
    skill = work / ".agents" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    skill.joinpath("SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes.\n---\nWrite the release notes.\n"
    )


def conversation_text(app: Any) -> str:
    """Every mounted transcript block's rendered text, top to bottom (status bar, welcome and
    notices about the session itself left out: they differ by design between a start and a resume)."""
    conv = app.conversation
    region = conv.content_region
    lines = [s.text.rstrip() for s in app.screen._compositor.render_strips()]
    text = lines[region.y : region.y + region.height]
    kept = [ln for ln in text if ln.strip() and not ln.strip().startswith("Resumed ")]
    first = next((i for i, ln in enumerate(kept) if ln.lstrip().startswith("▌")), 0)
    return "\n".join(kept[first:]).strip()  # from the first prompt: a fresh start's welcome is above it


async def expand_all(pilot: Any) -> None:
    await pilot.press("ctrl+o")
    await pilot.pause()
    await idle(pilot)


async def test_resume_shows_task_steps_durations_and_skills_as_live(make_app, fakellm, work: Path):
    workspace(work)
    fakellm.script(SCRIPT)
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await submit(pilot, "do the job")
        await idle(pilot)
        await submit(pilot, "/release-notes since v0.1")
        await wait_for(pilot, lambda: "Release notes: nothing new." in conversation_text(app))
        await idle(pilot)
        live = conversation_text(app)
        await expand_all(pilot)
        live_expanded = conversation_text(app)
        sid = app.session.id

    resumed = make_app(options=SessionOptions(resume=sid), permission_mode="yolo")
    async with resumed.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await idle(pilot)
        await wait_for(pilot, lambda: "Release notes: nothing new." in conversation_text(resumed))
        again = conversation_text(resumed)
        await expand_all(pilot)
        again_expanded = conversation_text(resumed)

    print(live_expanded)
    print("=====")
    print(again_expanded)
    assert "/release-notes since v0.1" in again and "Run the skill" not in again
    assert "slow-done" in again and "exit 0 · 2." in again
    assert "kid-out-2" in again_expanded  # the child's bash output, inside its task block
    assert again == live
    assert again_expanded == live_expanded


async def test_an_attachment_prompt_names_the_session_as_typed(make_app, fakellm, work: Path):
    """The status bar (live) and the store's title (the picker, inline's `Resumed …`) read
    `explain @notes.txt`, not the attached file's text."""
    (work / "notes.txt").write_text("SECRET-ISH FILE BODY\n")
    fakellm.script([Turn(text="It says hi.")])
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "explain @notes.txt")
        await idle(pilot)
        status = await wait_for(pilot, lambda: "explain @notes.txt" in (bar := status_bar(app)) and bar)
        assert "Contents of" not in status, status
        sid = app.session.id
        store = app.ctl.store
        info = store.get(sid)
        assert info is not None and info.title == "explain @notes.txt"


async def test_a_resumed_session_shows_its_context_share_before_the_next_turn(make_app, fakellm, work: Path):
    # "ctx %" is the last turn's measured prompt over the model's window: a resumed session has
    # that turn in its history, so the bar shows it at once, as it did when the session was left.
    fakellm.script([Turn(text="Hello there.")])
    app = make_app(model="openai/gpt-4o")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "say hello")
        await idle(pilot)
        live = await wait_for(pilot, lambda: "ctx " in (bar := status_bar(app)) and bar)
        sid = app.session.id

    resumed = make_app(options=SessionOptions(resume=sid), model="openai/gpt-4o")
    async with resumed.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await idle(pilot)
        again = await wait_for(pilot, lambda: "ctx " in (bar := status_bar(resumed)) and bar)
    assert live.split("ctx ")[1].split()[0] == again.split("ctx ")[1].split()[0]
    assert resumed.router.status.context_tokens == app.router.status.context_tokens > 0
