"""`--fallback-model` means the same in every front end (issue 24): the Runtime builds the root
session's client behind the fallback (runtime/wiring.main_client), so `-p`, `--plain`, inline mode
and the app (tests/tui/test_fallback.py) all send a turn the main model cannot serve (a 529
Overloaded here) to the fallback, and say so once. Before, only `-p` obeyed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.fakellm import Turn
from tests.inline.conftest import Term

SAID = "openai/main is unavailable (OpenAI returned 529: Overloaded); using the fallback model openai/spare."
FLAGS = ("--model", "openai/main", "--fallback-model", "openai/spare")


def _script(fakellm, *answers: str) -> None:
    fakellm.script(
        [
            Turn(status=529, error_message="Overloaded", match=lambda body: body["model"] == "main"),
            *(Turn(text=a, match=lambda body: body["model"] == "spare") for a in answers),
        ]
    )


def test_print_mode(fakellm, flue_main):
    _script(fakellm, "from the fallback")
    out = flue_main("-p", "hi", *FLAGS)
    assert out.code == 0, out.stderr
    assert out.stdout.strip() == "from the fallback"
    assert out.stderr.splitlines() == [f"flue: {SAID}"]
    assert [r["model"] for r in fakellm.requests] == ["main", "spare"]  # no retries of the main one


def test_print_mode_stream_json_says_it_on_stderr_too(fakellm, flue_main):
    _script(fakellm, "from the fallback")
    out = flue_main("-p", "hi", *FLAGS, "--output-format", "stream-json", "--verbose")
    assert out.code == 0, out.stderr
    assert out.stderr.splitlines() == [f"flue: {SAID}"]


def test_plain_mode(fakellm, flue_main):
    _script(fakellm, "from the fallback", "still the fallback")
    out = flue_main("--plain", *FLAGS, stdin="hi\nagain\n")
    assert out.code == 0, out.stderr
    assert "from the fallback" in out.stdout and "still the fallback" in out.stdout
    assert out.stderr.count(SAID) == 1
    assert [r["model"] for r in fakellm.requests] == ["main", "spare", "spare"]  # the run stays there


def test_the_fallback_gets_the_users_reply_bound(fakellm, flue_main, flue_env):
    """max_reply_chars (and idle_timeout, prompt_cache: tests/runtime/test_fallback.py) reach the
    fallback's client: a reply past the bound is cut, as the main model's would be."""
    _script(fakellm, "word " * 400)
    out = flue_main("-p", "hi", *FLAGS, env=dict(flue_env, FLUE_MAX_REPLY_CHARS="100"))
    assert out.code == 1
    assert "cut off at the output limit" in out.stdout + out.stderr
    assert len(out.stdout) < 400


def test_inline_mode(fakellm, flue_env, tmp_path: Path):
    _script(fakellm, "Answered by the spare.")
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in flue_env.items() if k != "NO_COLOR"}
    env["TERM"] = "xterm-256color"
    term = Term(
        [sys.executable, "-m", "flue_tui", "--inline", *FLAGS, "say hello"], env=env, cwd=work, rows=30, cols=160
    )
    try:
        term.wait_for("Answered by the spare.", timeout=120)  # generous: a loaded box
        assert "using the fallback model openai/spare" in term.screen_text()
        term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
        term.send("/quit\r")
        assert term.exit_code() == 0
    finally:
        term.close()
    assert [r["model"] for r in fakellm.requests] == ["main", "spare"]


@pytest.mark.parametrize("flags", [("--fallback-model", "openai/main"), ("--fallback-model", "openai/spare")])
def test_a_fallback_equal_to_the_model_is_refused_or_plain(fakellm, flue_main, flags):
    """-p refuses `--fallback-model` equal to `--model` (Claude Code's rule); a distinct one with a
    working main model is never asked."""
    fakellm.script([Turn(text="main answered")])
    out = flue_main("-p", "hi", "--model", "openai/main", *flags)
    if flags[1] == "openai/main":
        assert out.code == 2 and "--fallback-model must differ from --model" in out.stderr
    else:
        assert out.code == 0 and out.stdout.strip() == "main answered" and out.stderr == ""
        assert [r["model"] for r in fakellm.requests] == ["main"]
