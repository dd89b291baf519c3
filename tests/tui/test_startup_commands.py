"""Local commands typed the moment the input shows, while the session is still starting: each
answers on its own (at once, or once the session has started), one by one, and none reaches the
model as a prompt (issue 28)."""

from __future__ import annotations

from textual import events

from tests.tui.conftest import idle, ready, screen_text, wait_for

COMMANDS = ("/status", "/cost", "/context", "/permissions")


async def test_commands_typed_at_launch_answer_one_by_one(make_app, fakellm) -> None:
    app = make_app()
    async with app.run_test(size=(120, 60)) as pilot:
        await wait_for(pilot, lambda: app.prompt.is_mounted)  # the input shows: type at once
        # Typed ahead in one burst, as keys arrive from a terminal in one read: all queued on the
        # input before it handles the first (Pilot's press would wait after each key).
        for command in COMMANDS:
            for char in command:
                app.prompt.post_message(events.Key("slash" if char == "/" else char, char))
            app.prompt.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await ready(pilot)
        await idle(pilot)
        text = await wait_for(pilot, lambda: (t := screen_text(app)).count("Deny rules win") and t)
        assert fakellm.requests == []  # not one of them went to the model
        assert not app.queue
        assert "/cost/context" not in text and "queued" not in text
        # Each answered once, in the order typed.
        markers = ["Status:", "Tokens: ", "Context (estimated", "Permission mode: "]
        assert [text.count(m) for m in markers] == [1, 1, 1, 1], text
        assert [text.index(m) for m in markers] == sorted(text.index(m) for m in markers), text
