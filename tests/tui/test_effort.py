"""/effort in the app: shown, switched for the live session's next turn, and refused in one sentence."""

from __future__ import annotations

from tests.fakellm import Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


async def test_effort_switches_thinking_for_the_next_turn(make_app, fakeanthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_API_BASE", fakeanthropic.base_url)
    fakeanthropic.script([Turn(text="plain answer"), Turn(reasoning="Let me think.", text="thoughtful answer")])
    app = make_app(model="anthropic/claude-sonnet-4-5")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "first")
        await idle(pilot)
        assert "thinking" not in fakeanthropic.requests[0]
        await submit(pilot, "/effort")
        await wait_for(pilot, lambda: "Thinking effort: off." in screen_text(app))
        await submit(pilot, "/effort loud")
        await wait_for(pilot, lambda: "Unknown effort 'loud'" in screen_text(app))
        await submit(pilot, "/effort medium")
        await wait_for(pilot, lambda: "Thinking effort: medium." in screen_text(app))
        await submit(pilot, "second")
        await idle(pilot)
        await wait_for(pilot, lambda: "thoughtful answer" in screen_text(app))
        assert fakeanthropic.requests[1]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert not fakeanthropic.rejections
