"""`/skills` (and any two-column notice) wraps a long description under its column, not at the
margin (issue 17), in the app and, through the same renderable, inline."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from flue_tui.ui.hanging import Hanging
from tests.tui.conftest import ready, screen_text, submit, wait_for

LONG = "Write release notes for every change since the given tag, grouped by kind, with links and credits."


async def test_skills_wraps_with_a_hanging_indent(make_app, work: Path):
    skill = work / ".agents" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    skill.joinpath("SKILL.md").write_text(f"---\nname: release-notes\ndescription: {LONG}\n---\nWrite them.\n")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "/skills")
        await wait_for(pilot, lambda: "/release-notes" in screen_text(app))
        lines = screen_text(app).splitlines()
        at = next(i for i, ln in enumerate(lines) if "/release-notes" in ln)
        column = lines[at].index("Write")
        follow = lines[at + 1]
        assert follow[:column].strip() == "" and follow[column] != " ", "\n".join(lines)
        assert "credits." in "\n".join(lines[at : at + 4])


def test_hanging_text_for_the_inline_console():
    console = Console(width=60, record=True, color_system=None)
    console.print(Hanging(f"Skills:\n  /release-notes  {LONG}\nA plain sentence that is long enough to wrap " * 1))
    out = console.export_text().splitlines()
    assert out[1].startswith("  /release-notes  Write")
    assert all(ln.startswith(" " * 18) and ln[18] != " " for ln in out[2:4]), out
    assert not out[-1].startswith(" ")  # prose wraps at the margin
