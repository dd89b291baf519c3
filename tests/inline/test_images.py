"""Images in inline mode, through a pseudo-terminal: `@shot.png` and a path pasted as a terminal
delivers a drop (bracketed paste, quoted) attach with a chip; a resume shows the chip again; a
model without vision gets the one sentence and no request."""

from __future__ import annotations

from pathlib import Path

from tests.fakellm import Turn
from tests.images.pictures import png
from tests.inline.conftest import in_order

FIRST_REPLY_S = 120.0  # the first reply waits for litellm's import on a busy box


def _types(request: dict) -> list[str]:
    content = request["messages"][-1]["content"]
    return [p["type"] for p in content] if isinstance(content, list) else ["text"]


def test_at_image_and_a_dropped_path_attach_with_chips(inline, fakellm, work: Path):
    (work / "shot.png").write_bytes(png(4, 4))
    (work / "My Drop.png").write_bytes(png(5, 5, "blue"))
    fakellm.script([Turn(text="A red square."), Turn(text="A blue one.")])
    term = inline()
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("what is @shot.png\r")
    term.wait_for("A red square.", timeout=FIRST_REPLY_S)
    in_order(term.lines(), "› what is @shot.png", "⎿ attached [image shot.png · 1 KB]", "A red square.")
    assert _types(fakellm.requests[-1]) == ["text", "image_url"]
    term.send("and \x1b[200~'" + str(work / "My Drop.png") + "'\x1b[201~\r")
    term.wait_for("A blue one.")
    in_order(term.lines(), "⎿ attached [image My Drop.png · 1 KB]", "A blue one.")
    assert _types(fakellm.requests[-1]) == ["text", "image_url"]
    term.send("/quit\r")
    assert term.exit_code() == 0
    again = inline("--continue")
    again.wait_for("A blue one.", timeout=FIRST_REPLY_S)
    in_order(again.lines(), "what is @shot.png", "attached [image shot.png · 1 KB]", "A red square.")
    again.send("/quit\r")
    assert again.exit_code() == 0


def test_a_model_without_vision_is_told_before_any_request(inline, fakellm, work: Path):
    (work / "shot.png").write_bytes(png())
    term = inline("--model", "openai/gpt-3.5-turbo")
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("what is @shot.png\r")
    term.wait_for("does not take images", timeout=FIRST_REPLY_S)
    assert fakellm.requests == []
    term.send("/quit\r")
    assert term.exit_code() == 0
