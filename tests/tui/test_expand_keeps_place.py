"""Ctrl+O expands or collapses the finished blocks without moving what the user is reading
(issue 17: the blocks above grew and pushed the view away)."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, submit, wait_for


def top_line(app) -> str:
    region = app.conversation.content_region
    lines = screen_text(app).splitlines()
    return lines[region.y]


async def test_ctrl_o_keeps_the_block_at_the_top_of_the_view_in_place(make_app, fakellm, work: Path):
    for i in range(60):
        (work / f"f{i:02}.txt").write_text("".join(f"line {n} of f{i:02}\n" for n in range(6)))
    fakellm.script(
        [
            Turn(calls=[Call("read", {"path": f"f{i:02}.txt"}) for i in range(60)]),
            Turn(text="Read them all."),
        ]
    )
    app = make_app(permission_mode="yolo")
    async with app.run_test(size=(100, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "read everything")
        await idle(pilot)
        conv = app.conversation
        target = next(e for e in conv.mounted_entries if getattr(e, "args", {}).get("path") == "f20.txt")
        conv.scroll_to(y=target.view.virtual_region.y, animate=False, immediate=True)
        await pilot.pause()
        await wait_for(pilot, lambda: "f20.txt" in top_line(app))
        before = top_line(app)
        await pilot.press("ctrl+o")
        await idle(pilot)
        assert target.expanded
        # Drawn expanded (its file's lines on screen), with the same line at the top of the view.
        await wait_for(pilot, lambda: "line 0 of f20" in screen_text(app) and top_line(app) == before)
        await pilot.press("ctrl+o")  # and back
        await idle(pilot)
        assert not target.expanded
        await wait_for(pilot, lambda: "line 0 of f20" not in screen_text(app) and top_line(app) == before)
