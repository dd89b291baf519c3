"""Issue 30's rough edges in inline mode, in a real pty: how an unpriced model's cost reads, how a
long prompt and a `!command` are echoed, how /mcp's wrapped list keeps its indent."""

from __future__ import annotations

from tests.fakellm import Turn


def test_an_unpriced_models_cost_is_never_worded_as_zero(inline, fakellm):
    """The toolbar said `$0.0000` until the first answer and again after /new; /cost and /status too."""
    fakellm.script([Turn(text="First answer.")])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "0 in · 0 out" in term.screen_text() and "›" in term.prompt_line(), what="the toolbar")
    assert "$0" not in term.screen_text()
    term.send("/cost\r")
    term.wait(lambda t: "Tokens: 0 in · 0 out" in t, what="/cost")
    term.send("/status\r")
    term.wait(lambda t: "Cost:" in t, what="/status")
    assert "$0" not in term.text()
    term.send("hello\r")
    term.wait(lambda t: "10 in · 5 out · cost unknown" in term.screen_text(), what="the answer's total")
    term.send("/new\r")
    term.wait_for("New session.")
    term.wait(lambda t: "new session" in term.screen_text() and "0 in · 0 out" in term.screen_text(), what="/new")
    assert "$0" not in term.text()
