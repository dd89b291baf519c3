"""The turn-end notification's bytes (ui/notify.py) and the status line's fit (ui/statusline.py)."""

from __future__ import annotations

import pytest

from flue_tui.ui.notify import MAX_CHARS, notification, turn_message
from flue_tui.ui.statusline import Part, fit, joined, width_of
from flue_tui.ui.welcome import welcome_text


def test_notification_is_osc9_then_bel():
    assert notification("flue: done after 3.2s") == "\x1b]9;flue: done after 3.2s\x07\x07"
    assert turn_message("fix-login", duration_ms=42_000, is_error=False) == "flue · fix-login: done after 42s"
    assert turn_message("", duration_ms=1_500, is_error=True) == "flue: stopped with an error after 1.5s"


@pytest.mark.parametrize(
    "hostile",
    [
        "\x1b]52;c;cm0gLXJmIH4=\x07",  # write the clipboard
        "\x07\x1b]0;pwned\x1b\\",  # end our OSC early, then retitle the window
        "\x9c\x9d0;pwned\x07",  # 8-bit ST and OSC
        "line one\nline two\r\x1b[2J",
    ],
)
def test_notification_text_cannot_end_or_add_a_sequence(hostile: str):
    data = notification(f"flue · {hostile}: done")
    body = data[len("\x1b]9;") : -2]
    assert data.startswith("\x1b]9;") and data.endswith("\x07\x07")
    assert not any(c in body for c in "\x1b\x07\x9c\x9d\n\r")
    assert len(body) <= MAX_CHARS


def test_fit_drops_the_least_important_first_and_cuts_paths_from_the_left():
    parts = [
        Part("openai/gpt-4.1", 4),
        Part("a-long-session-name", 1),
        Part("~/src/some/deep/project/dir", 6, shrink_to=12),
        Part("accept-edits", 8),
        Part("↑12.3k ↓1.2k", 0),
        Part("ready", 9, sep="  "),
    ]
    assert fit(parts, 200) == parts
    assert fit(parts, 0) == parts  # width unknown: nothing dropped
    narrow = fit(parts, 60)
    assert width_of(narrow) <= 60
    assert [p.text for p in narrow][-2:] == ["accept-edits", "ready"] and "↑12.3k ↓1.2k" not in joined(narrow)
    tiny = fit(parts, 30)
    assert "accept-edits" in joined(tiny) and "ready" in joined(tiny) and width_of(tiny) <= 30


def test_welcome_is_short_and_suggests_init_only_without_agents_md(tmp_path):
    text = welcome_text(cwd=str(tmp_path), model="openai/fake", mode="ask", sandbox="local")
    assert len(text.splitlines()) == 4 and "Run /init" in text
    (tmp_path / "AGENTS.md").write_text("# rules\n")
    text = welcome_text(cwd=str(tmp_path), model="x\x1b]0;t\x07", mode="ask", sandbox="local")
    assert len(text.splitlines()) == 3 and "\x1b" not in text and "\x07" not in text
