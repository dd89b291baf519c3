"""`--fallback-model` in the app (issue 24; the other front ends: tests/test_fallback_front_ends.py):
the main model's 529 sends the turn to the fallback, the user reads one notice, and the next turns
stay there."""

from __future__ import annotations

from tests.fakellm import Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for

SAID = "openai/main is unavailable (OpenAI returned 529: Overloaded); using the fallback model openai/spare."


async def test_the_fallback_answers_when_the_main_model_is_overloaded(make_app, fakellm):
    fakellm.script(
        [
            Turn(status=529, error_message="Overloaded", match=lambda body: body["model"] == "main"),
            Turn(text="from the fallback", match=lambda body: body["model"] == "spare"),
            Turn(text="still the fallback", match=lambda body: body["model"] == "spare"),
        ]
    )
    app = make_app(model="openai/main", fallback_model="openai/spare")
    async with app.run_test(size=(160, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await idle(pilot)
        await wait_for(pilot, lambda: "from the fallback" in screen_text(app))
        assert screen_text(app).count(SAID) == 1
        await submit(pilot, "again")
        await idle(pilot)
        await wait_for(pilot, lambda: "still the fallback" in screen_text(app))
        assert screen_text(app).count(SAID) == 1  # said once: the run stays on the fallback
    assert [r["model"] for r in fakellm.requests] == ["main", "spare", "spare"]
