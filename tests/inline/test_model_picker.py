"""Inline `/model` without an id: a `model › ` line whose menu lists the local server's and
Ollama's models (local first, the current one marked); typing filters, Enter switches through the
session handle and the next request goes to that model; Esc keeps the model. At 80×24."""

from __future__ import annotations

from tests.fakellm import Turn

FIRST_REPLY_S = 120.0
ESC = "\x1b"


def test_filter_enter_switches_and_the_next_request_uses_it(inline, fakellm, fakeollama):
    fakellm.served_models = ["fake", "qwen2.5-coder-32b", "evil\x1b]0;pwned\x07"]
    fakeollama.models = {"llama3.2:latest": 131072}
    fakellm.script([Turn(text="Hello from the coder.")])
    term = inline(env={"OLLAMA_HOST": fakeollama.base_url}, rows=24, cols=80)
    term.wait(lambda t: "›" in term.prompt_line(), what="the prompt")
    term.send("/model\r")
    term.wait_for("ollama_chat/llama3.2:latest", timeout=FIRST_REPLY_S)
    assert "openai/fake ●" in term.screen_text()  # the current model marked
    assert "pwned" not in term.text()  # an id with escapes is not offered, never written raw
    term.send(ESC)
    term.wait_for("No model chosen; still openai/fake.")
    term.send("/model\r")
    term.wait(lambda t: t.count("model ›") >= 2, what="the picker again")
    term.send("coder")
    term.wait(lambda t: "llama3.2" not in term.screen_text() and "qwen2.5-coder-32b" in term.screen_text())
    term.send("\r")
    term.wait_for("Model: openai/qwen2.5-coder-32b")
    term.send("hello\r")
    term.wait_for("Hello from the coder.", timeout=FIRST_REPLY_S)
    assert fakellm.requests[-1]["model"] == "qwen2.5-coder-32b"
    term.send("/quit\r")
    assert term.exit_code() == 0
