"""Issue 30's rough edges in the app, each as a user meets it in the first hour: what a read says
it read, how an unpriced model's cost reads, where a command's output goes when the user has
scrolled up, what the first screen shows, how much of a diff an 80×24 approval shows."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Call, Turn
from tests.tui.conftest import idle, ready, screen_text, submit


async def test_a_partial_read_says_how_much_of_the_file_it_read(make_app, fakellm, work: Path):
    (work / "timed.py").write_text("".join(f"line {i}\n" for i in range(1, 229)))  # 229 lines, the last empty
    fakellm.script(
        [
            Turn(calls=[Call("read", {"path": "timed.py", "offset": 1, "limit": 160})]),
            Turn(calls=[Call("read", {"path": "timed.py"})]),
            Turn(text="Read it."),
        ]
    )
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "read timed.py")
        await idle(pilot)
        text = screen_text(app)
        assert "timed.py:1+160  160 of 229 lines" in text, text
        assert "timed.py  229 lines" in text, text  # a whole read: just the length
