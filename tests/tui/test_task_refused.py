"""A task the tool refuses before any child runs (its arguments fail the schema, say no `agent`)
shows why in its block, live as after a resume, instead of an empty `error` line."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


async def test_a_refused_task_says_why(make_app, fakellm, work: Path):
    fakellm.script(
        [
            Turn(calls=[Call("task", {"prompt": "List the python files.", "description": "check"})]),
            Turn(text="Went on without it."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "delegate it")
        await wait_for(pilot, lambda: "Went on without it." in screen_text(app))
        await idle(pilot)
        sent = fakellm.requests[-1]["messages"][-1]["content"]
        assert "agent" in str(sent)  # what the model was told
        text = screen_text(app)
        assert "✗ task" in text and "agent" in text.split("✗ task", 1)[1].split("Went on", 1)[0]
