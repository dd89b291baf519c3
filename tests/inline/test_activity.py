"""Inline mode says it is working while nothing else is on screen (issue 17 item 6): the model
library loading or the session starting under the first prompt, then the model not answering yet.
The line is live (redrawn, then gone): nothing of it stays in the scrollback."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.fakellm import Turn

FIRST_REPLY_S = 120.0


def test_a_spinner_line_while_the_model_has_not_answered(inline, fakellm, work: Path):
    answer = threading.Event()
    fakellm.script([Turn(text="Late but here.", stall_after=0, hold=answer)])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt", timeout=FIRST_REPLY_S)
    term.send("are you there?\r")
    term.wait_for("working… ", timeout=FIRST_REPLY_S)  # the model holds its answer until the test has seen it
    answer.set()
    term.wait_for("Late but here.", timeout=FIRST_REPLY_S)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt again")
    assert "working…" not in term.text()  # gone with the answer


def test_a_prompt_typed_at_once_says_what_it_waits_for(inline, fakellm, work: Path):
    answer = threading.Event()
    fakellm.script([Turn(text="Ready now.", stall_after=0, hold=answer)])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt", timeout=FIRST_REPLY_S)
    term.send("first words\r")  # at once: the session may still be starting (litellm loading)
    term.wait(
        lambda t: any(w in t for w in ("loading the model library…", "starting the session…", "working…")),
        what="a spinner line",
        timeout=FIRST_REPLY_S,
    )
    answer.set()
    term.wait_for("Ready now.", timeout=FIRST_REPLY_S)
