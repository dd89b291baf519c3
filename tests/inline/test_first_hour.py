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


def test_mcps_wrapped_tool_list_keeps_its_indent(inline, fakellm, work):
    """At 80 columns `    tools: echo, add, …` wrapped back to the margin."""
    from tests.mcp.conftest import mcp_json, stdio_entry

    (work / "servers.json").write_text(mcp_json(s=stdio_entry()))
    term = inline("--mcp-config", str(work / "servers.json"), rows=24, cols=80)
    term.wait_for("Welcome to flue")
    for _ in range(60):  # until the server is up (it starts with the session): each /mcp answers at once
        asked = term.text().count("MCP servers:")
        term.send("/mcp\r")
        term.wait(lambda t, asked=asked: t.count("MCP servers:") > asked, what="/mcp")
        if "    tools: " in term.text():
            break
    lines = term.lines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("    tools: "))
    assert len(lines[at]) > 60 and lines[at + 1].startswith("    ") and lines[at + 1].strip(), lines[at : at + 3]


def test_a_long_prompt_is_echoed_wrapped_between_words(inline, fakellm):
    """`make sur` / `e the whole suite`: the typed line stayed as prompt-toolkit wrapped it."""
    fakellm.script([Turn(text="Will do.")])
    term = inline(rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line() and "0 in · 0 out" in term.screen_text(), what="the prompt")
    prompt = "x" * 70 + " make sure the whole suite passes"  # column 80 falls inside "sure"
    term.send(prompt + "\r")
    term.wait_for("Will do.")
    lines = term.lines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith("› xxx"))
    assert lines[at] == "› " + "x" * 70 + " make", lines[at : at + 2]
    assert lines[at + 1] == "  sure the whole suite passes", lines[at : at + 2]
