"""`--tools` means the same in every front end (issue 24): the Runtime builds each session with only
those tools, so `-p`, `--plain`, inline mode and the app all offer the model exactly them (before,
only `-p` obeyed, and `flue --plain --tools Read` offered all eight)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakellm import Turn
from tests.inline.conftest import Term


def _offered(fakellm) -> list[str]:
    return sorted(t["function"]["name"] for t in fakellm.requests[0].get("tools", []))


def test_print_mode(fakellm, flue_main):
    fakellm.script([Turn(text="ok")])
    out = flue_main("-p", "hi", "--model", "openai/fake", "--tools", "Read,Grep")
    assert out.code == 0, out.stderr
    assert _offered(fakellm) == ["grep", "read"]


def test_plain_mode(fakellm, flue_main):
    fakellm.script([Turn(text="ok")])
    out = flue_main("--plain", "--model", "openai/fake", "--tools", "Read", stdin="hi\n")
    assert out.code == 0, out.stderr
    assert _offered(fakellm) == ["read"]


@pytest.mark.parametrize("mode", ["app", "inline"])
def test_the_app_and_inline_mode(fakellm, flue_env, tmp_path: Path, mode: str):
    fakellm.script([Turn(text="Offered what was asked.")])
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in flue_env.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    args = ["--inline"] if mode == "inline" else []
    term = Term(
        [sys.executable, "-m", "flue_tui", *args, "--model", "openai/fake", "--tools", "Read", "say hello"],
        env=env,
        cwd=work,
        rows=30,
        cols=100,
    )
    try:
        term.wait_for("Offered what was asked.", timeout=120)  # generous: a loaded box
        if mode == "inline":
            term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
        term.send("/quit\r")
        assert term.exit_code() == 0
    finally:
        term.close()
    assert _offered(fakellm) == ["read"]
